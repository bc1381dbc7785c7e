"""The syntax-check header declares the AscendC API as the real headers do: the forms
tilepipe used to print, which CANN rejects, are rejected here too, and the forms it prints now are accepted."""

from __future__ import annotations

import pytest

from tilepipe.lowering.ascend.ascendc import syntax_check

PRELUDE = """
#include "kernel_operator.h"
void f(AscendC::LocalTensor<float> c, AscendC::LocalTensor<half> a, AscendC::LocalTensor<half> l1,
       AscendC::GlobalTensor<float> g, AscendC::GlobalTensor<half> x, bool first) {
"""


def check(statement: str):
    return syntax_check(PRELUDE + "  " + statement + "\n}\n")


@pytest.mark.parametrize("statement, error", [
    # MmadParams is not an aggregate: no 12-value brace initializer.
    ("AscendC::Mmad(c, a, a, AscendC::MmadParams{128, 128, 64, false, 0, false, false, "
     "false, 0, false, false, first});", "MmadParams"),
    # FixpipeParamsV220 has no 4-argument constructor.
    ("AscendC::Fixpipe(g, c, AscendC::FixpipeParamsV220{128, 128, 128, 256});",
     "FixpipeParamsV220"),
    ("AscendC::Fixpipe(g, c, AscendC::FixpipeParamsV220(128, 128, 128, 256));",
     "FixpipeParamsV220"),
])
def test_old_forms_are_rejected(statement, error):
    result = check(statement)
    assert result.returncode != 0 and error in result.stderr


@pytest.mark.parametrize("statement", [
    "AscendC::Mmad(c, a, a, AscendC::MmadParams(128, 128, 64, 0, false, first));",
    "AscendC::Mmad(c, a, a, AscendC::MmadParams(128, 128, 64, false, 0, false, false, false));",
    "AscendC::Fixpipe(g, c, AscendC::FixpipeParamsV220(128, 128, 128, 256, false));",
    "AscendC::DataCopy(l1, x, AscendC::Nd2NzParams(1, 128, 64, 0, 256, 128, 1, 0));",
    "AscendC::LoadData(a, l1, AscendC::LoadData2DParams(0, 4, 8, 0, 0, false, 0));",
    "get_buf(PIPE_MTE2, 3, true); rls_buf(PIPE_MTE2, 3, true);",
    "asc_lock(PIPE_V, 3); asc_unlock(PIPE_V, 3, ASC_LOCK_BLOCK);",
    "AscendC::CrossCoreWaitFlag(2);",  # the template defaults of the real declaration
])
def test_printed_forms_are_accepted(statement):
    result = check(statement)
    assert result.returncode == 0, result.stderr
