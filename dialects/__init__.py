"""tilepipe's xDSL dialects (importable as ``tilepipe.dialects``)."""
