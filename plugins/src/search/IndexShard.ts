import { Config, Schema } from "effect"

/** One of `of` shards (`index` from 1): the accounts a process indexes when a fleet splits them. */
export interface IndexShard {
  readonly index: number
  readonly of: number
}

/** FNV-1a over the id's UTF-8 bytes: the same number in every process, and in a load balancer's script. */
const fnv1a = (text: string): number => {
  let hash = 0x811c9dc5
  for (const byte of new TextEncoder().encode(text)) hash = Math.imul(hash ^ byte, 0x01000193) >>> 0
  return hash
}

/** The shard (from 1) of `of` that holds an account. */
export const shardOf = (accountId: string, of: number): number => (fnv1a(accountId) % of) + 1

/** Whether `shard` indexes the account; every account when there are no shards. */
export const indexes = (shard: IndexShard | undefined, accountId: string): boolean =>
  shard === undefined || shardOf(accountId, shard.of) === shard.index

/** `k/n`, as `UMO_INDEX_SHARD` and `/health` write a shard. */
export const shardText = (shard: IndexShard): string => `${shard.index}/${shard.of}`

const ShardText = Schema.String.check(
  Schema.makeFilter((text: string) => {
    const match = /^([1-9]\d*)\/([1-9]\d*)$/.exec(text)
    return match !== null && Number(match[1]) <= Number(match[2])
      ? true
      : `a shard is k/n with 1 <= k <= n (for example 2/4), not ${JSON.stringify(text)}`
  })
)

/**
 * `UMO_INDEX_SHARD=k/n`: this process indexes the accounts whose id hashes to shard k of n and
 * answers every other account from the database. Unset, it indexes every account.
 */
export const shardConfig = Config.schema(ShardText, "UMO_INDEX_SHARD").pipe(
  Config.map((text): IndexShard => {
    const [index, of] = text.split("/").map(Number) as [number, number]
    return { index, of }
  }),
  Config.option
)
