/** Runs `work` on `workers` concurrent workers that take jobs from one queue, in order. */
export const pool = async <A>(
  jobs: ReadonlyArray<A>,
  workers: number,
  work: (worker: number, job: A) => Promise<void>
) => {
  let next = 0
  await Promise.all(
    Array.from({ length: workers }, async (_, worker) => {
      while (next < jobs.length) await work(worker, jobs[next++]!)
    })
  )
}
