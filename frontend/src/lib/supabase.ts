import { createClient } from '@supabase/supabase-js'

import { env } from '@/config/env'

import type { Database } from './database.types'

/** How often the realtime socket sends its heartbeat. */
export const REALTIME_HEARTBEAT_MS = 30_000
/** How long a realtime push (join, leave, broadcast) waits for its reply. */
export const REALTIME_TIMEOUT_MS = 10_000

/**
 * The one supabase-js client. Only src/lib and features' api/ modules import
 * it; components reach data through hooks. It lives in its own chunk: the
 * app shell loads it in the background (see auth.tsx).
 */
export const supabase = createClient<Database>(env.supabaseUrl, env.supabaseAnonKey, {
  auth: {
    persistSession: true,
    autoRefreshToken: true,
    detectSessionInUrl: true,
  },
  // The spec's figures (§9); realtime-js's own heartbeat default is 25 s.
  // Our realtime service closes a socket after 60 s without a heartbeat.
  realtime: {
    heartbeatIntervalMs: REALTIME_HEARTBEAT_MS,
    timeout: REALTIME_TIMEOUT_MS,
  },
})
