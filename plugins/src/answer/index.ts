/** Answer models behind the `AnswerModel` port. */
export * as CloudAnswerModel from "./CloudAnswerModel.js"
export * as ExtractiveAnswerModel from "./ExtractiveAnswerModel.js"
export { questionType } from "./QuestionType.js"
