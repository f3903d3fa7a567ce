import htm from "htm"
import { h } from "preact"

/** Preact's `h` behind tagged templates: components read like markup, and no JSX transform is needed. */
export const html = htm.bind(h)
