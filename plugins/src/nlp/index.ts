/** The default NLP plugins: capture, normalize, extract, enrich, parse and validate stages. */

// First: refuses a Node older than 22.19 before anything else of the package is evaluated.
import "../support/NodeVersion.js"

export { isAside, opensAhead, othersNewsUnasked } from "./Asides.js"
export { capture } from "./Capture.js"
export { enrich, findTone, findTopics, summarize } from "./Enrich.js"
export { entities, findEntities } from "./Entities.js"
export * as FactFinderLive from "./FactFinderLive.js"
export { type AskedFacts, askedFacts } from "./FactQuestions.js"
export { type Fact, statedFacts } from "./Facts.js"
export { namesRelative, speaksOf } from "./FactTopics.js"
export { guessLanguage, normalize, normalizeText, splitSentences, visibleCharacter } from "./Normalize.js"
export * as SlotSense from "./SlotSense.js"
export { findTriples, svoTriples } from "./SvoTriples.js"
export { validate } from "./Validate.js"
export { warmUp } from "./WarmUp.js"
