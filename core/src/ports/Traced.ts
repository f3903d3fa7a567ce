import { Effect } from "effect"

/** An object whose every member is a method answering an Effect: a port's implementation. */
// biome-ignore lint/suspicious/noExplicitAny: any method of a port
type Methods<Impl> = { readonly [K in keyof Impl]: (...args: Array<any>) => Effect.Effect<any, any, any> }

/**
 * A port's implementation with every method traced as `<port>.<method>`: what each port's
 * `make(impl)` adds, so adapters write only the work itself. No call-site stack trace is taken:
 * it would name this file every time, and taking one cost a search about 0.15 ms (2026-11-27).
 */
export const traced = <Impl extends Methods<Impl>>(port: string, impl: Impl): Impl =>
  Object.fromEntries(
    Object.entries(impl).map(([name, method]) => [
      name,
      // biome-ignore lint/suspicious/noExplicitAny: the method's own arguments
      (...args: Array<any>) =>
        // biome-ignore lint/suspicious/noExplicitAny: the method, called with them
        Effect.withSpan((method as any)(...args), `${port}.${name}`, { captureStackTrace: false })
    ])
  ) as Impl
