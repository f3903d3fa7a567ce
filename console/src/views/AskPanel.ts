/**
 * `POST /v1/ask`: an answer written from the memories of the scope. Its `[n]` markers become links
 * to the memories they cite, and the citations are listed below it with their own links.
 * @module
 */
import type { Answer, Citation } from "@umo/client"
import { useEffect, useRef, useState } from "preact/hooks"
import { useSession } from "../api/Session.js"
import { percent } from "../format.js"
import { html } from "../html.js"
import { Link, memoryHref } from "../Router.js"
import { type ConsoleScope, selectionOf } from "../Scope.js"
import { useRequest } from "../useRequest.js"
import { LaterLinks } from "./SearchPanel.js"

/** The answer text with each `[n]` that names a citation turned into a link to its memory. */
const AnswerText = (props: { text: string; citations: ReadonlyArray<Citation> }) => {
  const parts = props.text.split(/(\[\d+\])/)
  return html`<p class="answer" data-testid="answer">
    ${parts.map((part, i) => {
      const cited = /^\[(\d+)\]$/.exec(part)
      const citation = cited ? props.citations.find((c) => c.index === Number(cited[1])) : undefined
      return citation === undefined
        ? part
        : html`<${Link} key=${i} class="marker" href=${memoryHref(citation.umoId)} aria-label=${`citation ${citation.index}: ${citation.title}`}>${part}<//>`
    })}
  </p>`
}

/** `within` names the scope and erasures seen: when it changes, the answer shown is dropped. */
export const AskPanel = (props: { scope: ConsoleScope; within: string }) => {
  const { client } = useSession()
  const [question, setQuestion] = useState("")
  const [models, setModels] = useState<ReadonlyArray<string>>([])
  const [model, setModel] = useState("")
  const [answer, setAnswer] = useState<Answer | null>(null)
  const { busy, error, run } = useRequest()

  useEffect(() => {
    // Only the local models this server has installed: cloud ones need the caller's provider key.
    client
      .models()
      .then((list) => {
        setModels(list.local.filter((m) => m.available).map((m) => m.id))
        setModel(list.defaultModel ?? "")
      })
      .catch(() => setModels([]))
  }, [client])

  // An answer asked for in another scope than the one now shown is dropped.
  const within = useRef(props.within)
  within.current = props.within
  useEffect(() => setAnswer(null), [props.within])

  const submit = (event: SubmitEvent) => {
    event.preventDefault()
    const options = { ...selectionOf(props.scope), ...(model === "" ? {} : { model }) }
    const asked = props.within
    void run(async () => {
      const answered = await client.answer(question, options)
      if (within.current === asked) setAnswer(answered)
    })
  }

  return html`
    <section class="panel" aria-labelledby="ask-title">
      <h2 id="ask-title">Ask</h2>
      <form onSubmit=${submit}>
        <label for="ask-question">Question</label>
        <input
          id="ask-question"
          required
          maxlength="2000"
          value=${question}
          onInput=${(event: Event) => setQuestion((event.target as HTMLInputElement).value)}
        />
        ${
          models.length > 1
            ? html`<label for="ask-model">Model</label>
              <select id="ask-model" value=${model} onChange=${(event: Event) => setModel((event.target as HTMLSelectElement).value)}>
                ${models.map((id) => html`<option key=${id} value=${id}>${id}</option>`)}
              </select>`
            : null
        }
        <button type="submit" disabled=${busy}>${busy ? "Answering…" : "Ask"}</button>
      </form>
      ${error === null ? null : html`<p class="error" role="alert">${error}</p>`}
      ${
        answer === null
          ? null
          : html`<div class="answer-box" aria-live="polite">
            <${AnswerText} text=${answer.text} citations=${answer.citations} />
            <p class="hint">
              ${answer.method} answer by <code>${answer.model}</code> · ${answer.questionType} question ·
              confidence ${percent(answer.confidence)}
            </p>
            ${
              answer.citations.length === 0
                ? null
                : html`<h3>Citations</h3>
                  <ol class="citations" aria-label="Citations">
                    ${answer.citations.map(
                      (c) => html`
                        <li key=${c.index} value=${c.index} id=${`citation-${c.index}`}>
                          <${Link} href=${memoryHref(c.umoId)}>${c.title || c.umoId}<//>
                          <p class="snippet">${c.snippet}</p>
                          <span class="meta">similarity ${c.similarity.toFixed(3)}</span>
                          <${LaterLinks} links=${c.laterRelated} query="" />
                        </li>
                      `
                    )}
                  </ol>`
            }
          </div>`
      }
    </section>
  `
}
