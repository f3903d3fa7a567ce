/**
 * An accessibility audit of the page as it is, with axe-core (WCAG 2.1 A and AA rules, and axe's
 * best practices): the browser test runs it on each main view of the tour. The engine is injected
 * through the DevTools protocol, which the page's CSP does not govern, so the CSP stays in force.
 * @module
 */
import axe from "axe-core"
import type { Page } from "playwright-core"

export interface Violation {
  readonly view: string
  readonly rule: string
  readonly impact: string | null
  readonly targets: ReadonlyArray<string>
}

interface AxeResult {
  readonly violations: ReadonlyArray<{
    readonly id: string
    readonly impact?: string | null
    readonly nodes: ReadonlyArray<{ readonly target: ReadonlyArray<unknown> }>
  }>
}

/** The rules the page breaks, by view, with the elements that break them. */
export const auditAccessibility = async (page: Page, view: string): Promise<ReadonlyArray<Violation>> => {
  await page.evaluate(axe.source)
  const result = (await page.evaluate(() =>
    (globalThis as unknown as { axe: { run: (options: unknown) => Promise<unknown> } }).axe.run({
      runOnly: { type: "tag", values: ["wcag2a", "wcag2aa", "wcag21a", "wcag21aa", "best-practice"] }
    })
  )) as AxeResult
  return result.violations.map((v) => ({
    view,
    rule: v.id,
    impact: v.impact ?? null,
    targets: v.nodes.map((node) => node.target.join(" "))
  }))
}
