"""tilepipe's analyses and passes (importable as ``tilepipe.passes``)."""
