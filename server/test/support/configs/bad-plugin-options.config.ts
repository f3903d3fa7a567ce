// A configuration whose plugin refuses its options: the server must not start, and must say why.
import { defineConfig } from "@umo/memory"
import { defaultPlugins } from "@umo/plugins"
import { hashtags } from "../../../../examples/served-plugin/hashtags.js"

export default defineConfig({ plugins: [...defaultPlugins(), hashtags({ lowercase: "yes" } as never)] })
