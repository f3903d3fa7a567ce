/**
 * The memory service's calls as MCP tools: each a name, a description written for a model, the
 * JSON Schemas of its arguments and of its structured result (derived from the same schemas the
 * HTTP API documents, so the limits an agent is shown are the ones enforced), hints about its
 * effects, and the one call of `Memory` it makes.
 * @module
 */
import {
  AskRequest,
  CaptureRequest,
  EraseRequest,
  ListRequest,
  Results,
  ScopesRequest,
  SearchRequest,
  UpdateRequest
} from "@umo/memory"
import { Effect, Schema } from "effect"
import { idArgument, type MemoryTool, memoryId, reads, tool } from "./ToolSchemas.js"
import { transferTools } from "./TransferTools.js"
import { Verdict, verifyMemory } from "./Verdict.js"

export type { MemoryTool, ToolHints } from "./ToolSchemas.js"

/** The ask request without `provider_key`: a cloud key given as a tool argument would sit in agent transcripts. */
const { provider_key: _providerKey, ...askFields } = AskRequest.fields
const AnswerArguments = Schema.Struct(askFields)

const ById = Schema.Struct({ umo_id: memoryId })

const listed = (items: ReadonlyArray<{ readonly umo_id: string }>, line: (item: never) => string) =>
  items.length === 0 ? "No memories." : items.map((item, i) => `${i + 1}. ${line(item as never)}`).join("\n")

/** A result's later related memories, one indented line each, for the model to weigh. */
const laterText = (links: ReadonlyArray<Results.LaterRelated>) =>
  links
    .map((l) => `\n   later (${l.timestamp}, ${l.link} ${l.score}): [${l.umo_id}] ${l.content_text}`)
    .join("")

/** The tools, in the order `tools/list` shows them. */
export const memoryTools: ReadonlyArray<MemoryTool> = [
  tool({
    name: "capture_memory",
    title: "Remember",
    description:
      "Save something worth remembering to the user's long-term memory: a fact, preference, event, decision or note. " +
      "Write one self-contained statement with who, what and when (e.g. 'Ana's birthday is 12 March; she likes " +
      "orchids'), not a transcript. Give `timestamp` when the content happened at another time than now, so " +
      "'yesterday' and 'next week' resolve against it. Give `user_id` (and `agent_id`, `session_id`) when you serve " +
      "several people, so each one's memories stay apart, and `metadata` for your own tags. When a fact changed " +
      "('she moved to Lisbon'), the older memory stating the old value is superseded by itself (by the fact rules, " +
      "and the update judge where the deployment turns it on); name memories it " +
      "replaces in `supersedes` to say so outright. For something true only for a while (a door code this week, a " +
      "trip), give `ttl` in seconds or `expires_at`: it leaves every search then. `immutable` keeps a memory from " +
      "ever being replaced. Returns the new memory's id, what it superseded and a signed receipt.",
    input: CaptureRequest,
    output: Results.Captured,
    annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: false, openWorldHint: false },
    call: (memory, args) => memory.capture(args as never),
    text: (r) =>
      `Captured memory ${r.umo_id} (quality ${r.quality_score.toFixed(2)}, created ${r.created_at}).` +
      (r.supersedes.length > 0 ? ` It supersedes ${r.supersedes.join(", ")}.` : "") +
      (r.superseded_by === null ? "" : ` A newer memory, ${r.superseded_by}, already supersedes it.`) +
      (r.warnings === undefined ? "" : ` Warning: ${r.warnings.join(" ")}`) +
      (r.duplicate_of === undefined ? "" : " It was already remembered, so nothing new was stored.")
  }),
  tool({
    name: "search_memories",
    title: "Search memories",
    description:
      "Find the user's memories that best match a query (meaning and wording both count), best first, with each " +
      "memory's full text and a relevance score. Use before answering anything that may depend on what the user " +
      "told you earlier. Narrow by `user_id` (and `agent_id`, `session_id`, `source`, `metadata`, `after`, `before`, " +
      "or a `filters` expression) to one person's memories. Memories a newer one superseded are left out unless " +
      "`include_superseded`. The first results list, as `later_related`, later memories of the same person that " +
      "may update them (linked by the update judge or by nearness, each with its time): decide from them what holds now.",
    input: SearchRequest,
    output: Results.SearchResults,
    annotations: reads,
    call: (memory, args) => memory.search(args as never),
    text: (r) =>
      listed(
        r.results,
        (m: Results.SearchResults["results"][number]) =>
          `[${m.umo_id}] (${m.score.toFixed(3)}) ${m.content_text}${m.times_said > 1 ? ` (said ${m.times_said} times, last ${m.timestamp})` : ""}${laterText(m.later_related)}`
      )
  }),
  tool({
    name: "answer_question",
    title: "Answer from memories",
    description:
      "Answer a question from the user's memories only, with [n] citations naming the memories each part comes " +
      "from. The answer says so when the memories do not hold it; `confidence` (0 to 1) tells how far to trust it. " +
      "Prefer this over search when you need one short answer (a name, a date, a number, yes or no). It answers " +
      "from what is current; a question about the past ('where did she live before?') also reads superseded memories. " +
      "Narrow by `user_id` like search.",
    input: AnswerArguments,
    output: Results.AskAnswer,
    annotations: reads,
    call: (memory, args) => memory.answer(args as never),
    text: (r) =>
      [
        r.answer,
        ...r.citations.map((c) => `[${c.index}] ${c.umo_id}: ${c.snippet}${laterText(c.later_related)}`),
        `(confidence ${r.confidence.toFixed(2)}, ${r.model})`
      ].join("\n")
  }),
  tool({
    name: "get_memory",
    title: "Read a memory",
    description:
      "Read one memory by id: its full text, summary, entities, subject-verb-object triples, topics, tone, " +
      "quality score, source, times and hashes.",
    input: ById,
    output: Results.MemoryRecord,
    annotations: reads,
    call: (memory, args) => Effect.flatMap(idArgument(args), memory.get),
    text: (r) =>
      `${r.umo_id} (${r.created_at}${r.source === null ? "" : `, source ${r.source}`}): ${r.content_text}`
  }),
  tool({
    name: "list_memories",
    title: "List memories",
    description:
      "List the user's memories, newest first, a page at a time (`limit` 1 to 100, `offset` to page on), " +
      "optionally narrowed like search (`user_id`, `source`, `metadata`, `filters`, …). Each item has its id, " +
      "summary, scope, metadata, times and, when a newer memory replaced it, `superseded_by`.",
    input: ListRequest,
    output: Results.ListPage,
    annotations: reads,
    call: (memory, args) => memory.list(args as never),
    text: (r) =>
      `${listed(r.items, (m: Results.ListPage["items"][number]) => `[${m.umo_id}] ${m.created_at}: ${m.summary}`)}\n` +
      `(${r.total_count} in all${r.has_more ? "; more with a higher offset" : ""})`
  }),
  tool({
    name: "forget_memory",
    title: "Forget a memory",
    description:
      "Delete a memory for good: its text and vectors are erased and cannot be recovered. Only when the user asks " +
      "you to forget it. Returns a signed deletion receipt.",
    input: ById,
    output: Results.DeletionReceipt,
    annotations: { readOnlyHint: false, destructiveHint: true, idempotentHint: true, openWorldHint: false },
    call: (memory, args) => Effect.flatMap(idArgument(args), memory.forget),
    text: (r) => `Forgot memory ${r.umo_id} at ${r.deleted_at}. Signed receipt: ${r.receipt}`
  }),
  tool({
    name: "memory_history",
    title: "A memory's versions",
    description:
      "Show how a fact changed: the memory's whole line of versions, oldest first — every memory it superseded " +
      "and every memory that superseded it — each with its text and times; the last one not superseded is current.",
    input: ById,
    output: Results.MemoryHistory,
    annotations: reads,
    call: (memory, args) => Effect.flatMap(idArgument(args), memory.history),
    text: (r) =>
      listed(
        r.versions,
        (v: Results.MemoryHistory["versions"][number]) =>
          `[${v.umo_id}] ${v.timestamp}${v.superseded_by === null ? " (current)" : ""}: ${v.content_text}`
      )
  }),
  tool({
    name: "update_memory",
    title: "Change a memory",
    description:
      "Change what a memory says (`content`) or its tags (`metadata`, replacing them whole), when the user " +
      "corrects it or it changed: a new version is captured in the same scope and supersedes the old one, which " +
      "stays in the memory's history. Give the id of the current version. `expires_at` (null: never) or `ttl` " +
      "alone moves when it expires, in place. A memory captured immutable refuses changes. Returns the version's id.",
    input: Schema.Struct({ umo_id: memoryId, ...UpdateRequest.fields }),
    output: Results.Captured,
    annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: false, openWorldHint: false },
    call: (memory, { umo_id, ...change }) =>
      Effect.flatMap(idArgument({ umo_id }), (id) => memory.update(id, change as never)),
    text: (r) =>
      r.supersedes.length === 0
        ? `Updated memory ${r.umo_id} in place: its expiry moved.`
        : `Updated: the new version is memory ${r.umo_id}; it supersedes ${r.supersedes.join(", ")}.`
  }),
  tool({
    name: "list_scopes",
    title: "List users, agents and sessions",
    description:
      "List the end users (`user_id`), agents (`agent_id`) and conversations (`session_id`) that hold memories, " +
      "most recently active first, with how many memories each holds and the newest one's time. Narrow by `kind` " +
      "(user, agent or session) and by an id `prefix`; page with `limit` and `offset`.",
    input: ScopesRequest,
    output: Results.ScopeList,
    annotations: reads,
    call: (memory, args) => memory.scopes(args as never),
    text: (r) =>
      r.scopes.length === 0
        ? "No scopes hold memories."
        : `${r.scopes.map((s) => `${s.kind} ${s.id}: ${s.memories} memories, newest ${s.last_memory_at}`).join("\n")}\n` +
          `(${r.total_count} in all${r.has_more ? "; more with a higher offset" : ""})`
  }),
  tool({
    name: "forget_memories",
    title: "Forget a person's memories",
    description:
      "Delete every memory of one end user (`user_id`), agent (`agent_id`) or conversation (`session_id`) for good, " +
      "superseded versions too — at least one of them is required — optionally narrowed by `source`, `metadata`, " +
      "`after`, `before` or `filters`. Only when the user asks for it. Returns how many were erased and one signed receipt.",
    input: EraseRequest,
    output: Results.ErasureReceipt,
    annotations: { readOnlyHint: false, destructiveHint: true, idempotentHint: true, openWorldHint: false },
    call: (memory, args) => memory.erase(args as never),
    text: (r) =>
      r.forgotten === 0
        ? "No memories matched: nothing was erased."
        : `Forgot ${r.forgotten} memories at ${r.deleted_at}. Signed receipt: ${r.receipt}`
  }),
  tool({
    name: "verify_memory",
    title: "Verify a memory",
    description:
      "Check that a memory is exactly what was captured: its text is hashed again and compared with the hash " +
      "signed into the account's chain at capture, the signature is checked against the service's public keys, " +
      "and the chain around it is checked for breaks. Says 'verified' or what failed.",
    input: ById,
    output: Verdict,
    annotations: reads,
    call: (memory, args) => Effect.flatMap(idArgument(args), (id) => verifyMemory(memory, id)),
    text: (r) => r.explanation
  }),
  ...transferTools
]
