"""IR-building helpers shared by the transformations: folding ``index`` arithmetic
(``index_arith``) and rebuilding an op with operand groups replaced
(``operand_rewrite``).

May import: ``tilepipe.dialects``.  Like the shared analyses, nothing here imports a
pass, a lowering or a driver.
"""
