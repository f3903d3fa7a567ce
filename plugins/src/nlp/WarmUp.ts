import { findEntities } from "./Entities.js"
import { statedFacts } from "./Facts.js"

/**
 * Loads the language engines (compromise with its dates plugin: about half a second) and runs the
 * fact rules' patterns once (V8 compiles a regular expression on its first use), so that the first
 * capture or search after start does not hold the event loop for it — a third of a second on two
 * cores, every other request waiting behind it.
 */
export const warmUp = (): void => {
  const text = "We moved to Lisbon last Friday and I started at Acme as a designer."
  statedFacts(text)
  findEntities(text, new Date().toISOString())
}
