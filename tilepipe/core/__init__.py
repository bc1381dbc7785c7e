"""The ground floor every layer stands on: target records (``targets``), the pass,
dialect and flow tables (``registry``, ``flows``), located parsing (``source``) and
op-attached diagnostics (``diagnostics``).  Nothing here imports a pass or a driver."""
