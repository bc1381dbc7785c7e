"""Scheduled-level async/sync ops of the ``pipeline`` dialect.

Target-neutral synchronization that the pipelining and sync-insertion passes emit and
the lowerings consume: async copies with tokens, commit/wait groups, block barriers
(full or partial), mbarriers with expected transaction bytes and parity waits, and
bulk (TMA-style) copies.
"""

from __future__ import annotations

from xdsl.ir import ParametrizedAttribute, TypeAttribute
from xdsl.irdl import IRDLOperation

PIPELINE_SYNC_OPS: list[type[IRDLOperation]] = []
PIPELINE_SYNC_TYPES: list[type[ParametrizedAttribute | TypeAttribute]] = []
