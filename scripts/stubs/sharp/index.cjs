// transformers.js imports sharp at load and calls it only to read images, which UMO never gives
// it: a truthy stand-in that says so if it is ever called.
module.exports = function sharp() {
  throw new Error(
    "sharp is not installed: UMO stubs it out (scripts/stubs/sharp); transformers.js image inputs are not supported"
  )
}
