"""The top floor: what users run and embed.  The command-line drivers (``opt``:
tile-opt, ``run``: tile-run, ``cli``: tilepipe, ``ascendc``), the compile driver
(``compile``), tuning (``tune``; per configuration ``tune_evaluate``, its executors
``tune_executors``, cache ``tune_cache``, table/JSON/progress ``tune_report`` and chart
``tune_svg``), the embedding API (``api``, ``interop``), launching compiled CUDA
kernels on a GPU (the driver API ``cuda_driver``, the ``kernel_abi``, one launch
``cuda_launch``) and the drivers' shared plumbing (``command_line``, ``pipeline_spec``,
``lit_support``)."""
