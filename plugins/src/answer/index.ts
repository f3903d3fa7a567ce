/** Answer models behind the `AnswerModel` port. */
export * as ExtractiveAnswerModel from "./ExtractiveAnswerModel.js"
export { questionType } from "./QuestionType.js"
