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
      'select', 'insert', 'update', 'upsert', 'delete', 'eq', 'neq', 'ilike', 'or', 'in', 'cs', 'textSearch', 'order', 'range',
      'limit', 'abortSignal', 'throwOnError', 'single', 'maybeSingle', 'gte', 'lte', 'is', 'overrideTypes',
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

  // Realtime: a channel records its bindings and subscribes at once; tests
  // call `fake.channels[i].emit(table, payload)` to deliver a change.
  const channels: FakeChannel[] = []
  function channel(topic: string) {
    const bindings: { filter: Record<string, unknown>; callback: (payload: unknown) => void }[] = []
    const fakeChannel: FakeChannel = {
      topic,
      bindings,
      removed: false,
      on(_type: string, filter: Record<string, unknown>, callback: (payload: unknown) => void) {
        bindings.push({ filter, callback })
        return fakeChannel
      },
      subscribe(callback?: (status: string) => void) {
        queueMicrotask(() => callback?.('SUBSCRIBED'))
        return fakeChannel
      },
      emit(table: string, payload: Record<string, unknown>) {
        for (const binding of bindings) {
          const event = binding.filter.event
          if (binding.filter.table === table && (event === '*' || event === payload.eventType)) binding.callback({ table, ...payload })
        }
      },
    }
    channels.push(fakeChannel)
    return fakeChannel
  }

  const client = {
    from: vi.fn(from),
    rpc: vi.fn(),
    channel: vi.fn(channel),
    removeChannel: vi.fn(async (removed: FakeChannel) => {
      removed.removed = true
      return 'ok'
    }),
    auth: {
      signInWithPassword: vi.fn(),
      signUp: vi.fn(),
      signInWithOAuth: vi.fn(),
      resetPasswordForEmail: vi.fn(),
      updateUser: vi.fn(),
      signOut: vi.fn(),
      // MFA: by default no factor is enrolled (aal1, nothing more to pass).
      mfa: {
        getAuthenticatorAssuranceLevel: vi.fn(async () => ({ data: { currentLevel: 'aal1', nextLevel: 'aal1', currentAuthenticationMethods: [] }, error: null })),
        listFactors: vi.fn(async (): Promise<{ data: { all: unknown[]; totp: unknown[]; phone: unknown[] }; error: null }> => ({
          data: { all: [], totp: [], phone: [] },
          error: null,
        })),
        challengeAndVerify: vi.fn(),
        enroll: vi.fn(),
        unenroll: vi.fn(async () => ({ data: {}, error: null })),
      },
    },
    storage: { from: vi.fn() },
    realtime: { setAuth: vi.fn(async () => {}) },
  }

  return {
    client,
    requests,
    /** Realtime channels opened so far (removed ones are marked). */
    channels,
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

/** A Realtime channel of the fake client. */
export type FakeChannel = {
  topic: string
  bindings: { filter: Record<string, unknown>; callback: (payload: unknown) => void }[]
  removed: boolean
  on(type: string, filter: Record<string, unknown>, callback: (payload: unknown) => void): FakeChannel
  subscribe(callback?: (status: string) => void): FakeChannel
  /** Delivers a postgres_changes payload ({ eventType, new, old }) to the bindings on `table`. */
  emit(table: string, payload: Record<string, unknown>): void
}
