import { randomUUID } from "node:crypto"
import { closeSync, mkdirSync, openSync, readSync, unlinkSync, writeSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"

/**
 * Where the index keeps its float32 rows unless told (`UMO_INDEX_DIR`): the system's temporary
 * directory. It should be on a disk, not a tmpfs: on a tmpfs the rows take RAM again.
 */
export const defaultRowsDir = () => join(tmpdir(), "umo-index")

/**
 * The float32 vectors of a set, by slot, in a file rather than the heap: the set ranks by its int8
 * copies in memory and reads only the few candidates it scores exactly from here (about 4 µs a
 * row from the page cache; the operating system keeps what is read often and drops the rest,
 * which the process's resident memory never counts). The file is unlinked as soon as it is
 * open: it lives as long as its descriptor, so a process that ends, however it ends, leaves
 * nothing behind.
 */
export class ExactRows {
  private fd: number | undefined
  private readonly rowBytes: number

  constructor(
    readonly dims: number,
    dir: string = defaultRowsDir()
  ) {
    mkdirSync(dir, { recursive: true })
    const path = join(dir, `rows-${process.pid}-${randomUUID()}.f32`)
    this.fd = openSync(path, "w+")
    unlinkSync(path)
    this.rowBytes = dims * 4
  }

  private get open(): number {
    if (this.fd === undefined) throw new Error("the index's vector rows are closed")
    return this.fd
  }

  /** Writes the vector of `slot`. */
  write(slot: number, vector: ArrayLike<number>): void {
    const row = vector instanceof Float32Array ? vector : Float32Array.from(vector)
    writeSync(this.open, row, 0, this.rowBytes, slot * this.rowBytes)
  }

  /** Reads `count` consecutive rows from `slot` into `into` (its start); `into`. */
  read(slot: number, into: Float32Array, count = 1): Float32Array {
    const bytes = count * this.rowBytes
    const got = readSync(this.open, into, 0, bytes, slot * this.rowBytes)
    if (got !== bytes) throw new Error(`the index's vector rows ended at slot ${slot}`)
    return into
  }

  close(): void {
    if (this.fd !== undefined) closeSync(this.fd)
    this.fd = undefined
  }
}
