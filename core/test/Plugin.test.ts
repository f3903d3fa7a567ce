import { decodeOptions, makePlugin, PluginOptionsError } from "@umo/core"
import { Effect, Schema } from "effect"
import { describe, expect, it } from "vitest"

const run = Effect.succeed

describe("makePlugin", () => {
  it("accepts a well-formed plugin value", () => {
    const plugin = makePlugin({ name: "hashtags", version: "1.2.3", stage: "extract", run })
    expect(plugin.name).toBe("hashtags")
  })

  it("rejects bad names, versions and stages at construction", () => {
    expect(() => makePlugin({ name: "Bad Name", version: "1.0.0", stage: "extract", run })).toThrow(
      PluginOptionsError
    )
    expect(() => makePlugin({ name: "x", version: "one", stage: "extract", run })).toThrow(/semver/)
    expect(() => makePlugin({ name: "x", version: "1.0.0", stage: "nope" as "extract", run })).toThrow(
      /unknown stage/
    )
  })
})

describe("decodeOptions", () => {
  const Options = Schema.Struct({ max: Schema.optional(Schema.Number) })

  it("decodes valid options and treats undefined as empty", () => {
    expect(decodeOptions("p", Options, { max: 3 })).toEqual({ max: 3 })
    expect(decodeOptions("p", Options, undefined)).toEqual({})
  })

  it("names the plugin when options are wrong", () => {
    expect(() => decodeOptions("my-plugin", Options, { max: "three" })).toThrow(PluginOptionsError)
    try {
      decodeOptions("my-plugin", Options, { max: "three" })
    } catch (error) {
      expect((error as PluginOptionsError).plugin).toBe("my-plugin")
    }
  })
})
