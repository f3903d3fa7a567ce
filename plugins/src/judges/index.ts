/** Judges behind the `UpdateJudge` port: the learned judge (the default), the fact rules, a language model. */
// First: refuses a Node older than 22.19 before anything else of the package is evaluated.
import "../support/NodeVersion.js"

export * as LanguageModelJudge from "./LanguageModelJudge.js"
export * as LearnedJudge from "./LearnedJudge.js"
export * as LocalModelJudge from "./LocalModelJudge.js"
export * as RulesJudge from "./RulesJudge.js"
export * as UpdateJudgeChoice from "./UpdateJudgeChoice.js"
