import { vi } from 'vitest'

/** One recorded builder call, e.g. ['eq', 'type', 'Bedsitter']. */
export type Call = [method: string, ...args: unknown[]]

export type Request = { table: string; calls: Call[] }

export type Responder = (request: Request) => { data: unknown; count?: number | null } | Promise<{ data: unknown; count?: number | null }>

/**
 * A stand-in for the supabase-js client with no network: `from(table)`
 * returns a chainable builder that records every call and, when awaited,
 * answers with `respond(request)`. `rpc`, `auth` and `storage` are vi.fn()s
 * tests can program. Use it with
 * `vi.mock('@/lib/supabase', () => ({ supabase: fake.client }))`.
 */
export function createFakeSupabase(respond: Responder = () => ({ data: [], count: 0 })) {
  const requests: Request[] = []
  let responder = respond

  function from(table: string) {
    const request: Request = { table, calls: [] }
    requests.push(request)
    const builder: Record<string, unknown> = {}
    const chain = (method: string) => (...args: unknown[]) => {
      request.calls.push([method, ...args])
      return builder
    }
    for (const method of [
      'select', 'insert', 'update', 'upsert', 'delete', 'eq', 'neq', 'ilike', 'or', 'in', 'cs', 'order', 'range',
      'limit', 'abortSignal', 'throwOnError', 'single', 'maybeSingle', 'gte', 'lte',
    ]) {
      builder[method] = chain(method)
    }
    builder.then = (resolve: (value: unknown) => unknown, reject: (reason: unknown) => unknown) =>
      Promise.resolve()
        .then(() => responder(request))
        .then((result) => ({ error: null, count: null, ...result }))
        .then(resolve, reject)
    return builder
  }

  const client = {
    from: vi.fn(from),
    rpc: vi.fn(),
    auth: {
      signInWithPassword: vi.fn(),
      signUp: vi.fn(),
      signInWithOAuth: vi.fn(),
      resetPasswordForEmail: vi.fn(),
      updateUser: vi.fn(),
      signOut: vi.fn(),
    },
    storage: { from: vi.fn() },
  }

  return {
    client,
    requests,
    /** Replaces the responder for the following requests. */
    respondWith(next: Responder) {
      responder = next
    },
    /** The recorded requests of one table. */
    requestsOf(table: string) {
      return requests.filter((request) => request.table === table)
    },
  }
}

export type FakeSupabase = ReturnType<typeof createFakeSupabase>
