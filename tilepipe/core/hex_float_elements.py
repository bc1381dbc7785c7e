"""Hexadecimal elements of a dense float attribute are bit patterns, as in MLIR.

Upstream prints a float element that has no exact short decimal form (``-inf``,
``nan``, ...) as its bits: ``dense<0xFF800000> : vector<4xf32>`` is four ``-inf``.
xDSL 0.75 reads such an element as the integer 4286578688 and converts it to a float,
a silent miscompile of any upstream dump holding one (flash attention's running
maximum starts at ``-inf``).  A scalar ``0xFF800000 : f32`` it reads right.
:func:`hex_float_elements` makes the dense case agree; the registry installs it, so
every parse by tilepipe has it (``test/python/tools/test_upstream_printing.py``).
"""

from __future__ import annotations

import struct

from xdsl.dialects.builtin import AnyFloat, BFloat16Type, Float16Type, Float32Type, Float64Type


def float_from_bits(bits: int, float_type: AnyFloat) -> float | None:
    """The value of ``bits`` read as ``float_type``; None for a type without a Python
    reading here (the parse then reports the literal as before)."""
    if isinstance(float_type, BFloat16Type):
        return struct.unpack("<f", struct.pack("<I", (bits & 0xFFFF) << 16))[0]
    formats = {Float16Type: ("<e", "<H"), Float32Type: ("<f", "<I"), Float64Type: ("<d", "<Q")}
    for type_class, (float_format, int_format) in formats.items():
        if isinstance(float_type, type_class):
            return struct.unpack(float_format, struct.pack(int_format, bits))[0]
    return None


def hex_float_elements() -> bool:
    """Read hexadecimal elements of float tensor literals as bit patterns.  Idempotent;
    False where xDSL's attribute parser lacks the hook this relies on."""
    from xdsl.parser.attribute_parser import AttrParser

    element = getattr(AttrParser, "_TensorLiteralElement", None)
    if element is None or not hasattr(element, "to_type"):
        return False
    if getattr(element, "_tilepipe_hex_floats", False):
        return True
    original = element.to_type

    def to_type(self, parser, element_type):  # type: ignore[no-untyped-def]
        if (
            isinstance(element_type, AnyFloat)
            and type(self.value) is int
            and self.span.text[:2].lower() == "0x"
        ):
            value = float_from_bits(self.value, element_type)
            if value is not None:
                return value
        return original(self, parser, element_type)

    element.to_type = to_type
    element._tilepipe_hex_floats = True
    return True


hex_float_elements()
