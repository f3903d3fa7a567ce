import { randomUUID } from "node:crypto"
import { closeSync, mkdirSync, openSync, readSync, unlinkSync, write, writeSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { grown } from "./TypedArrays.js"

/**
 * Where the index keeps its float32 rows unless told (`UMO_INDEX_DIR`): the system's temporary
 * directory. It should be on a disk, not a tmpfs: on a tmpfs the rows take RAM again.
 */
export const defaultRowsDir = () => join(tmpdir(), "umo-index")

/** Rows a write takes at most (one call of the file system each). */
const rowsPerWrite = 256
/** Blocks of rows that may wait for their write; past this a row is written at once (a disk slower than the loads). */
const mostWaiting = 64

/** Consecutive rows not yet on file, from slot `from`: read from here until their write is done. */
interface Waiting {
  readonly from: number
  count: number
  /** Room for 16 rows at first, doubled as they come, up to `rowsPerWrite` (a capture writes one or a few). */
  rows: Float32Array
  writing: boolean
}

/**
 * The float32 vectors of a set, by slot, in a file rather than the heap: the set ranks by its int8
 * copies in memory and reads only the few candidates it scores exactly from here (about 4 µs a
 * row from the page cache; the operating system keeps what is read often and drops the rest,
 * which the process's resident memory never counts). The file is unlinked as soon as it is
 * open: it lives as long as its descriptor, so a process that ends, however it ends, leaves
 * nothing behind.
 *
 * Rows are written behind, off the main thread, a block of up to 256 at a time, and read from
 * memory until their write is done: written one by one on the main thread, a load of 1,000,000
 * waited up to 80 ms for 250 rows each time the kernel wrote the file's dirty pages back.
 */
export class ExactRows {
  private fd: number | undefined
  private readonly rowBytes: number
  private readonly waiting: Array<Waiting> = []
  private writes = 0
  /** The slot after the last written: rows are written once each, in slot order. */
  private next = 0
  private closed = false
  private failure: Error | undefined

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
    if (this.failure !== undefined) throw this.failure
    if (this.fd === undefined || this.closed) throw new Error("the index's vector rows are closed")
    return this.fd
  }

  /** Bytes the rows waiting for their write take. */
  get bytes(): number {
    return this.waiting.reduce((sum, block) => sum + block.rows.byteLength, 0)
  }

  /** Rows whose write is not done yet. */
  get behind(): number {
    return this.waiting.reduce((sum, block) => sum + block.count, 0)
  }

  /**
   * Writes the vector of `slot`, after every slot written before (behind: it reads back at once).
   * Once each: writes behind may finish in any order, so none may overwrite another.
   */
  write(slot: number, vector: ArrayLike<number>): void {
    const fd = this.open
    if (slot < this.next) throw new Error(`row ${slot} written after row ${this.next - 1}`)
    this.next = slot + 1
    let block = this.waiting.at(-1)
    if (
      block === undefined ||
      block.writing ||
      block.count === rowsPerWrite ||
      block.from + block.count !== slot
    ) {
      if (this.waiting.length >= mostWaiting) {
        const row = vector instanceof Float32Array ? vector : Float32Array.from(vector)
        writeSync(fd, row, 0, this.rowBytes, slot * this.rowBytes)
        return
      }
      block = { from: slot, count: 0, rows: new Float32Array(16 * this.dims), writing: false }
      this.waiting.push(block)
      // A block not filled in this turn of the event loop is written in the next.
      const waiting = block
      setImmediate(() => this.flush(waiting)).unref()
    }
    block.rows = grown(block.rows, (block.count + 1) * this.dims)
    block.rows.set(vector, block.count * this.dims)
    block.count++
    if (block.count === rowsPerWrite) this.flush(block)
  }

  /** Reads `count` consecutive rows from `slot` into `into` (its start); `into`. */
  read(slot: number, into: Float32Array, count = 1): Float32Array {
    const fd = this.open
    if (!this.waiting.some((block) => block.from < slot + count && slot < block.from + block.count))
      return this.readFile(fd, slot, into, count)
    for (let i = 0; i < count; i++) {
      const row = into.subarray(i * this.dims, (i + 1) * this.dims)
      const block = this.waitingWith(slot + i)
      if (block === undefined) this.readFile(fd, slot + i, row, 1)
      else
        row.set(
          block.rows.subarray((slot + i - block.from) * this.dims, (slot + i - block.from + 1) * this.dims)
        )
    }
    return into
  }

  /** Lets the file go, once the writes under way are done (its descriptor could be given to another file meanwhile). */
  close(): void {
    this.closed = true
    this.waiting.length = 0
    if (this.writes === 0 && this.fd !== undefined) closeSync(this.fd)
    if (this.writes === 0) this.fd = undefined
  }

  private readFile(fd: number, slot: number, into: Float32Array, count: number): Float32Array {
    const bytes = count * this.rowBytes
    const got = readSync(fd, into, 0, bytes, slot * this.rowBytes)
    if (got !== bytes) throw new Error(`the index's vector rows ended at slot ${slot}`)
    return into
  }

  /** The block waiting that holds `slot`, if any. */
  private waitingWith(slot: number): Waiting | undefined {
    return this.waiting.find((block) => slot >= block.from && slot < block.from + block.count)
  }

  private flush(block: Waiting): void {
    if (block.writing || this.closed || this.fd === undefined) return
    block.writing = true
    this.writes++
    const bytes = new Uint8Array(block.rows.buffer, 0, block.count * this.rowBytes)
    write(this.fd, bytes, 0, bytes.length, block.from * this.rowBytes, (error, written) => {
      this.writes--
      if (error !== null || written !== bytes.length)
        this.failure ??=
          error ?? new Error(`the index's vector rows were written short at slot ${block.from}`)
      const at = this.waiting.indexOf(block)
      if (at !== -1) this.waiting.splice(at, 1)
      if (this.closed && this.writes === 0 && this.fd !== undefined) {
        closeSync(this.fd)
        this.fd = undefined
      }
    })
  }
}
