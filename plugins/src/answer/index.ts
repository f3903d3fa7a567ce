/** Answer models behind the `AnswerModels` port: the local extractive one, local language models, cloud ones, the defaults. */

// First: refuses a Node older than 22.19 before anything else of the package is evaluated.
import "../support/NodeVersion.js"

export { contentWords } from "./AnswerSpans.js"
export * as CloudAnswerModel from "./CloudAnswerModel.js"
export * as DefaultAnswerModels from "./DefaultAnswerModels.js"
export * as ExtractiveAnswerModel from "./ExtractiveAnswerModel.js"
export { mentions } from "./FactAnswer.js"
export * as LocalLanguageModel from "./LocalLanguageModel.js"
export { asksAboutThePast, asksForTheFirst, nowWords, questionType } from "./QuestionType.js"
