import { describe, expect, it } from 'vitest'

import { REALTIME_HEARTBEAT_MS, REALTIME_TIMEOUT_MS, supabase } from '../supabase'

describe('the supabase client', () => {
  // Spec §9: realtime heartbeat 30 seconds, timeout 10 seconds. Read from the
  // live client, so a client built without the options (realtime-js beats
  // every 25 s by default) fails here.
  it.each([
    ['heartbeat', () => supabase.realtime.heartbeatIntervalMs, REALTIME_HEARTBEAT_MS, 30_000],
    ['push timeout', () => supabase.realtime.timeout, REALTIME_TIMEOUT_MS, 10_000],
  ])('realtime %s is the spec figure', (_name, read, constant, spec) => {
    expect(constant).toBe(spec)
    expect(read()).toBe(spec)
  })
})
