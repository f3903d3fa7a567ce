// Two plugins of one name: the pipeline cannot be built, and the start says which.
import { defineConfig } from "@umo/memory"
import { defaultPlugins } from "@umo/plugins"
import { hashtags } from "../../../../examples/served-plugin/hashtags.js"

export default defineConfig({ plugins: [...defaultPlugins(), hashtags(), hashtags()] })
