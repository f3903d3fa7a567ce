import { Context, type Effect } from "effect"
import type { FactMode } from "../Updates.js"

/** A fact a text states: about whom, what, its value, and how it bears on earlier values. */
export interface FoundFact {
  /** `self` for the writer ("I", "we"), else who: "sister", "ana". */
  readonly subject: string
  /** What about them: `residence`, `employer`, `pet`, … (`*` for a `keep` fact). */
  readonly attribute: string
  /** The value, normalized: lower case, trimmed. */
  readonly value: string
  /** The value as the text writes it ("Lisbon"): what an answer quotes. */
  readonly written: string
  readonly mode: FactMode
}

/** What a question asks: attributes (a prefix matches: `plan:trip` asks for `plan:trip:japan`) and whom. */
export interface AskedFacts {
  readonly attributes: ReadonlyArray<string>
  /** `self` for "I", a name or relation when the question names one, undefined when it names none. */
  readonly subject: string | undefined
}

/** A name a text mentions, and its kind (`PERSON`, `PLACE`, `ORGANIZATION`, `DATE`, …). */
export interface NamedThing {
  readonly text: string
  readonly type: string
}

/**
 * Reads language about facts, for what is current: the facts a memory states (capture and import
 * keep them, and the store decides supersessions by them, `Updates.ts`), and how a question and a
 * candidate bear on each other (what it asks, whether a candidate speaks of it or is an aside), for
 * search's currency order. Capture, import and recall hold it, never the rules themselves, so a
 * deployment can bring a fact finder of its own (another language, a model). Adapter:
 * `@umo/plugins/nlp`'s `FactFinderLive` (English rules, and the slot sense by the embedder).
 */
export interface FactFinderShape {
  /** The facts a text states, read at once (by rules): what imports and search read. */
  readonly stated: (text: string) => ReadonlyArray<FoundFact>
  /** The facts a captured text states: `stated`, and what the finder reads besides (by meaning). */
  readonly read: (text: string) => Effect.Effect<ReadonlyArray<FoundFact>>
  /** The names a text mentions, its relative dates read as of `timestamp` (ISO 8601). */
  readonly names: (text: string, timestamp: string) => ReadonlyArray<NamedThing>
  /** What a question asks about, in the finder's attributes. */
  readonly asked: (question: string) => AskedFacts
  /** Whether a text speaks of one of these kinds of fact in its own words, stated or not. */
  readonly speaksOf: (attributes: ReadonlyArray<string>) => (text: string) => boolean
  /** Whether a text names a relative or someone close ("my sister", "my boss"). */
  readonly namesRelative: (text: string) => boolean
  /** Whether a text is an aside rather than the writer's own news: a question, a wish, someone else's news. */
  readonly isAside: (text: string) => boolean
  /** Whether a text opens on what is ahead ("Next month I'm…"), not on how things stand. */
  readonly opensAhead: (text: string) => boolean
  /** Whether a text gives someone else's news that a question does not ask about. */
  readonly othersNewsUnasked: (text: string, question: string) => boolean
}

export class FactFinder extends Context.Service<FactFinder, FactFinderShape>()("@umo/core/FactFinder") {}
