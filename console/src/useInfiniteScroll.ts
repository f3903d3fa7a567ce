import { useEffect, useRef } from "preact/hooks"

/**
 * Calls `loadMore` whenever the returned element (a sentinel below a list) comes near the viewport
 * while `enabled`. The observer is made anew each time `enabled` turns true or `epoch` changes (a new
 * filter), and a new observer reports at once: a page too short to push the sentinel out of view
 * keeps loading.
 */
export const useInfiniteScroll = (loadMore: () => void, enabled: boolean, epoch?: unknown) => {
  const sentinel = useRef<HTMLDivElement>(null)
  const latest = useRef(loadMore)
  latest.current = loadMore
  useEffect(() => {
    const element = sentinel.current
    if (!enabled || element === null) return
    const observer = new IntersectionObserver(
      (entries) => {
        if (entries.some((entry) => entry.isIntersecting)) latest.current()
      },
      { rootMargin: "300px 0px" }
    )
    observer.observe(element)
    return () => observer.disconnect()
  }, [enabled, epoch])
  return sentinel
}
