func.func @k() {
  %c0 = arith.constant 0 : index
  %x = "tile.bogus"() : () -> index
  func.return
}
