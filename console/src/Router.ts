/**
 * A small router over the History API: the server answers `index.html` for every path under
 * `/console` (ConsoleFiles.ts), so each view has a real address that can be bookmarked or reloaded.
 * @module
 */
import { useEffect, useState } from "preact/hooks"
import { html } from "./html.js"

export const base = "/console"

export type Route =
  | { readonly name: "memories" }
  | { readonly name: "memory"; readonly id: string }
  | { readonly name: "search" }
  | { readonly name: "upload" }
  | { readonly name: "chain" }
  | { readonly name: "missing"; readonly path: string }

/** The view a location names. */
export const parseRoute = (pathname: string): Route => {
  const path = pathname.startsWith(base) ? pathname.slice(base.length).replace(/\/+$/, "") : pathname
  if (path === "" || path === "/memories") return { name: "memories" }
  const memory = /^\/memories\/([^/]+)$/.exec(path)
  if (memory) return { name: "memory", id: decodeURIComponent(memory[1]!) }
  if (path === "/search") return { name: "search" }
  if (path === "/upload") return { name: "upload" }
  if (path === "/chain") return { name: "chain" }
  return { name: "missing", path }
}

/** The address of a console path such as `/memories/<id>`. */
export const hrefOf = (path: string) => `${base}${path}`

export const memoryHref = (id: string) => hrefOf(`/memories/${encodeURIComponent(id)}`)

const changed = "umo:navigate"

/** Goes to a console path without reloading the page. */
export const navigate = (href: string) => {
  history.pushState(null, "", href)
  window.dispatchEvent(new Event(changed))
}

/** A value read from the location, read again on back/forward and on `navigate`. */
const useLocation = <T>(read: () => T): T => {
  const [value, setValue] = useState(read)
  useEffect(() => {
    const update = () => setValue(read)
    window.addEventListener("popstate", update)
    window.addEventListener(changed, update)
    return () => {
      window.removeEventListener("popstate", update)
      window.removeEventListener(changed, update)
    }
  }, [])
  return value
}

/** The current route; re-renders on back/forward and on `navigate`. */
export const useRoute = (): Route => useLocation(() => parseRoute(location.pathname))

/** The address's query string (`?…`, or ""); re-renders when it changes. */
export const useSearch = (): string => useLocation(() => location.search)

/**
 * A real link (it opens in a new tab, copies, and works without the router) that navigates in place
 * on a plain click.
 */
export const Link = (props: {
  href: string
  class?: string
  children?: unknown
  [attribute: string]: unknown
}) => {
  const { href, children, ...rest } = props
  const onClick = (event: MouseEvent) => {
    if (event.button !== 0 || event.metaKey || event.ctrlKey || event.shiftKey || event.altKey) return
    event.preventDefault()
    navigate(href)
  }
  return html`<a ...${rest} href=${href} onClick=${onClick}>${children}</a>`
}
