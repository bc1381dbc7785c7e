"""tilepipe's lowerings to NVVM/PTX and Ascend (importable as ``tilepipe.lowering``)."""
