/** Judges behind the `UpdateJudge` port: the learned judge (the default), the fact rules, a language model. */
export * as LanguageModelJudge from "./LanguageModelJudge.js"
export * as LearnedJudge from "./LearnedJudge.js"
export * as LocalModelJudge from "./LocalModelJudge.js"
export * as RulesJudge from "./RulesJudge.js"
export * as UpdateJudgeChoice from "./UpdateJudgeChoice.js"
