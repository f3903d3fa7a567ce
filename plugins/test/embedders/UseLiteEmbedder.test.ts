import { it } from "@effect/vitest"
import { UseLiteEmbedder } from "@umo/plugins"
import { describe } from "vitest"
import { behavesLikeASentenceEmbedder } from "./shared.js"

describe("UseLiteEmbedder", () => {
  it.layer(UseLiteEmbedder.layer({ batchSize: 2 }))((it) => {
    it.effect("embeds with the weights shipped in npm", () => behavesLikeASentenceEmbedder)
  })
})
