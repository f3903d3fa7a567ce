/** Answer models behind the `AnswerModels` port: the local extractive one, cloud ones, the defaults. */
export * as CloudAnswerModel from "./CloudAnswerModel.js"
export * as DefaultAnswerModels from "./DefaultAnswerModels.js"
export * as ExtractiveAnswerModel from "./ExtractiveAnswerModel.js"
export { questionType } from "./QuestionType.js"
