import * as net from "node:net"
import { Duplex } from "node:stream"
import * as PgConnection from "@effect/sql-pg/PgConnection"
import { type Duration, Effect, Exit, Redacted } from "effect"

/** One server of a PostgreSQL URL. */
export interface HostPort {
  readonly host: string
  readonly port: number
}

/** A PostgreSQL URL taken apart: its servers (one or several) and what every connection to them sends. */
export interface PostgresTarget {
  readonly hosts: ReadonlyArray<HostPort>
  readonly username: string | undefined
  readonly password: string | undefined
  readonly database: string | undefined
  /** Seconds (`connect_timeout`), if the URL gives it. */
  readonly connectTimeoutSeconds: number | undefined
  readonly applicationName: string | undefined
}

/**
 * Reads a libpq-style URL, `postgres://user:password@host1:port1,host2:port2/database?…`, whose
 * host part may list several servers (the libpq form for failover); a server without a port is
 * on 5432. Other query parameters than `connect_timeout` and `application_name` are refused, so
 * none is ignored without a word (one host: the client reads the URL itself, every parameter).
 */
export const parsePostgresUrl = (url: string): PostgresTarget => {
  const match = /^postgres(?:ql)?:\/\/(?:([^@/]*)@)?([^/?#]*)(?:\/([^?#]*))?(?:\?([^#]*))?$/.exec(url)
  if (match === null) throw new Error("not a postgres:// URL")
  const [, userinfo, hostlist, path, query] = match
  const [user, password] = userinfo === undefined ? [] : userinfo.split(":")
  const hosts = hostlist!.split(",").map((part): HostPort => {
    const bracketed = /^\[([^\]]+)\](?::(\d+))?$/.exec(part)
    const [host, port] = bracketed ? [bracketed[1]!, bracketed[2]] : part.split(":")
    if (!host) throw new Error(`a server without a host in "${hostlist}"`)
    const number = port === undefined || port === "" ? 5432 : Number(port)
    if (!Number.isInteger(number) || number < 1 || number > 65_535)
      throw new Error(`invalid port in "${part}"`)
    return { host: decodeURIComponent(host), port: number }
  })
  const params = new URLSearchParams(query ?? "")
  for (const name of params.keys())
    if (name !== "connect_timeout" && name !== "application_name")
      throw new Error(`the parameter ${name} is not supported in a URL with several servers`)
  const timeout = params.get("connect_timeout")
  return {
    hosts,
    username: user ? decodeURIComponent(user) : undefined,
    password: password ? decodeURIComponent(password) : undefined,
    database: path ? decodeURIComponent(path) : undefined,
    connectTimeoutSeconds: timeout === null ? undefined : Number(timeout),
    applicationName: params.get("application_name") ?? undefined
  }
}

/** `host:port`, for messages (never the credentials). */
export const describeHost = ({ host, port }: HostPort) =>
  host.includes(":") ? `[${host}]:${port}` : `${host}:${port}`

/**
 * Whether a server accepts writes now: one short session asks it `pg_is_in_recovery()`. A server
 * that cannot be reached, or is a standby, does not.
 */
export const acceptsWrites = (
  target: PostgresTarget,
  server: HostPort,
  timeout: Duration.Input = "2 seconds"
) =>
  Effect.scoped(
    Effect.flatMap(
      PgConnection.make({
        host: server.host,
        port: server.port,
        username: target.username,
        password: target.password === undefined ? undefined : Redacted.make(target.password),
        database: target.database,
        connectTimeout: timeout,
        prepare: false,
        applicationName: "umo-primary-probe"
      }),
      (connection) => connection.query("SELECT pg_is_in_recovery() AS standby", [], false)
    )
  ).pipe(
    Effect.exit,
    Effect.map((exit) => Exit.isSuccess(exit) && exit.value.rows[0]?.["standby"] === false)
  )

/**
 * Finds the primary among a URL's servers, and a socket factory that connects each new session to
 * it (the `stream` option of `@effect/sql-pg`, called once per physical connection). The primary
 * found is kept until a connection to it fails; the next connection then asks every server again
 * (the last primary first), so once a standby is promoted the pool's new sessions go to it with
 * no restart. Until one server accepts writes, connecting fails (the store answers 503).
 */
export const primaryLocator = (target: PostgresTarget) => {
  let current: HostPort | undefined
  let searching: Promise<HostPort> | undefined

  const locate = (): Promise<HostPort> => {
    if (current !== undefined) return Promise.resolve(current)
    searching ??= Effect.runPromise(
      Effect.gen(function* () {
        for (const server of target.hosts) if (yield* acceptsWrites(target, server)) return server
        return yield* Effect.fail(
          new Error(`none of ${target.hosts.map(describeHost).join(", ")} accepts writes (no primary)`)
        )
      })
    ).then(
      (found) => {
        current = found
        searching = undefined
        return found
      },
      (cause: unknown) => {
        searching = undefined
        throw cause
      }
    )
    return searching
  }

  /** Forgets the primary when a connection to it fails, so the next one looks again. */
  const failed = (server: HostPort) => {
    if (current === server) current = undefined
  }

  const stream = (): Duplex => new RoutedSocket(locate, failed)
  return {
    stream,
    locate,
    failed,
    get current() {
      return current
    }
  }
}

/**
 * A socket whose server is chosen asynchronously: what the client writes before the choice is
 * kept and sent once connected (the client writes its startup message at once).
 */
class RoutedSocket extends Duplex {
  private inner: net.Socket | undefined
  private pending: Array<[Buffer, (error?: Error | null) => void]> = []

  constructor(locate: () => Promise<HostPort>, failed: (server: HostPort) => void) {
    super()
    locate().then(
      (server) => {
        if (this.destroyed) return
        const socket = net.connect({ host: server.host, port: server.port, noDelay: true })
        this.inner = socket
        let answered = false
        socket.on("data", (data) => {
          answered = true
          if (!this.push(data)) socket.pause()
        })
        socket.on("end", () => this.push(null))
        socket.on("error", (error) => {
          // Refused or reset before the server said anything: it is gone, look for the primary again.
          if (!answered) failed(server)
          this.destroy(error)
        })
        socket.on("close", () => {
          if (!answered) failed(server)
          this.destroy()
        })
        for (const [chunk, done] of this.pending) socket.write(chunk, done)
        this.pending = []
      },
      (error: unknown) => this.destroy(error instanceof Error ? error : new Error(String(error)))
    )
  }

  override _write(chunk: Buffer, _encoding: BufferEncoding, done: (error?: Error | null) => void) {
    if (this.inner === undefined) this.pending.push([chunk, done])
    else this.inner.write(chunk, done)
  }

  override _final(done: (error?: Error | null) => void) {
    if (this.inner === undefined) done()
    else this.inner.end(done)
  }

  override _read() {
    this.inner?.resume()
  }

  override _destroy(error: Error | null, done: (error?: Error | null) => void) {
    this.inner?.destroy()
    for (const [, write] of this.pending) write(error ?? new Error("the connection closed"))
    this.pending = []
    done(error)
  }
}
