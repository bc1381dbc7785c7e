"""xDSL's implicit builders in two threads at once.

``ImplicitBuilder`` swaps ``Operation.__post_init__`` for the whole process on entry
and puts back what it found on exit.  A thread entering while another is inside, and
leaving after it, put the other thread's wrapper back for good: every op built under
an implicit builder afterwards was inserted twice.  In a compile, the parser's
implicit terminators and the NVVM lowering's builders met this way about one run in
three of eight threads (``test_embedding``); here the interleaving is forced.
"""

from __future__ import annotations

import threading

from xdsl.builder import ImplicitBuilder
from xdsl.dialects import arith
from xdsl.dialects.builtin import IntegerAttr, i32
from xdsl.ir import Block, Operation

import tilepipe.core.registry  # noqa: F401  (installs the thread-safe builders)
from tilepipe.core.compiler_lock import thread_safe_implicit_builders


def test_interleaved_builders_leave_each_op_inserted_once():
    assert thread_safe_implicit_builders()
    installed = Operation.__post_init__
    first_inside, second_inside, first_left = threading.Event(), threading.Event(), threading.Event()
    blocks = {"first": Block(), "second": Block()}
    errors: list[BaseException] = []

    def first() -> None:
        try:
            with ImplicitBuilder(blocks["first"]):
                first_inside.set()
                second_inside.wait(10)
                arith.ConstantOp(IntegerAttr(1, i32))
        except BaseException as err:
            errors.append(err)
        finally:
            first_left.set()

    def second() -> None:
        try:
            first_inside.wait(10)
            with ImplicitBuilder(blocks["second"]):
                second_inside.set()
                first_left.wait(10)
                # The first thread has left: its exit must not have unhooked this one.
                arith.ConstantOp(IntegerAttr(2, i32))
        except BaseException as err:
            errors.append(err)

    threads = [threading.Thread(target=first), threading.Thread(target=second)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert errors == []
    assert [len(blocks[name].ops) for name in ("first", "second")] == [1, 1]
    # Both gone, one builder again: each op once, and none outside a builder.
    assert Operation.__post_init__ is installed
    block = Block()
    with ImplicitBuilder(block):
        arith.ConstantOp(IntegerAttr(3, i32))
        arith.ConstantOp(IntegerAttr(4, i32))
    loose = arith.ConstantOp(IntegerAttr(5, i32))
    assert len(block.ops) == 2 and loose.parent is None
