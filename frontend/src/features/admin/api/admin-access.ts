import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query'

import { env } from '@/config/env'
import { supabase } from '@/lib/supabase'

import { adminKeys } from './keys'

/** localStorage flag of spec §3 ('adminVerified' = 'true'), kept beside the server's session check. */
export const ADMIN_FLAG_KEY = 'adminVerified'

export function readAdminFlag(): boolean {
  try {
    return window.localStorage.getItem(ADMIN_FLAG_KEY) === 'true'
  } catch {
    return false
  }
}

export function writeAdminFlag(on: boolean): void {
  try {
    if (on) window.localStorage.setItem(ADMIN_FLAG_KEY, 'true')
    else window.localStorage.removeItem(ADMIN_FLAG_KEY)
  } catch {
    // Storage unavailable: the server's session check still decides.
  }
}

/** What the admin guard knows about the signed-in user (spec §4 admin access sequence). */
export type AdminGate = {
  /** The user's e-mail is the single admin account's. */
  isAdminEmail: boolean
  /** user_roles.role is 'admin'. */
  hasAdminRole: boolean
  /** The server says this auth session passed the access code (verify_admin_access). */
  sessionVerified: boolean
}

export async function getAdminGate(user: { id: string; email?: string | null }, signal?: AbortSignal): Promise<AdminGate> {
  const isAdminEmail = (user.email ?? '').trim().toLowerCase() === env.adminEmail.trim().toLowerCase()
  if (!isAdminEmail) return { isAdminEmail, hasAdminRole: false, sessionVerified: false }
  let roleQuery = supabase.from('user_roles').select('role').eq('user_id', user.id)
  if (signal) roleQuery = roleQuery.abortSignal(signal)
  const { data: role } = await roleQuery.maybeSingle().throwOnError()
  const hasAdminRole = role?.role === 'admin'
  if (!hasAdminRole) return { isAdminEmail, hasAdminRole, sessionVerified: false }
  const { data: verified } = await supabase.rpc('admin_session_verified').throwOnError()
  return { isAdminEmail, hasAdminRole, sessionVerified: verified === true }
}

export function useAdminGate(user: { id: string; email?: string | null } | null) {
  return useQuery({
    queryKey: adminKeys.gate(user?.id),
    queryFn: ({ signal }) => getAdminGate(user!, signal),
    enabled: !!user,
    staleTime: 60_000,
    retry: 1,
  })
}

/** The outcome of an access-code attempt (verify_admin_access, 0028). */
export type AccessResult =
  | { verified: true }
  | { verified: false; error: 'invalid_code'; attempts_left: number }
  | { verified: false; error: 'too_many_attempts'; retry_after: string }
  | { verified: false; error: 'not_admin' }
  | { verified: false; error: 'mfa_required' }

/**
 * The MFA step of the access flow: whether this session still has to pass a
 * verified TOTP factor (aal1 now, aal2 possible), and which factor.
 */
export type MfaStep = { required: false } | { required: true; factorId: string }

export async function getMfaStep(): Promise<MfaStep> {
  const { data: aal, error } = await supabase.auth.mfa.getAuthenticatorAssuranceLevel()
  if (error) throw error
  if (aal.currentLevel === 'aal2' || aal.nextLevel !== 'aal2') return { required: false }
  const { data: factors, error: listError } = await supabase.auth.mfa.listFactors()
  if (listError) throw listError
  const totp = factors.totp.find((f) => f.status === 'verified')
  return totp ? { required: true, factorId: totp.id } : { required: false }
}

export function useMfaStep(userId: string | undefined) {
  return useQuery({ queryKey: adminKeys.mfa(userId), queryFn: getMfaStep, enabled: !!userId, staleTime: 0, retry: 1 })
}

/** The 6-digit code of a TOTP factor: lifts the session to aal2 (same session, new tokens). */
export function useVerifyMfa() {
  const queryClient = useQueryClient()
  return useMutation({
    mutationFn: async ({ factorId, code }: { factorId: string; code: string }) => {
      const { data, error } = await supabase.auth.mfa.challengeAndVerify({ factorId, code })
      if (error) throw error
      // supabase-js hands Realtime a new token only on SIGNED_IN and
      // TOKEN_REFRESHED, not on MFA_CHALLENGE_VERIFIED: without this the
      // socket keeps the aal1 token and the admin's RLS reads (is_admin()
      // wants aal2) stay closed to the live screens until the next refresh.
      await supabase.realtime.setAuth(data.access_token)
    },
    onSuccess: () => {
      void queryClient.invalidateQueries({ queryKey: ['admin', 'mfa'] })
      void queryClient.invalidateQueries({ queryKey: ['admin', 'gate'] })
    },
  })
}

/** Whether the signed-in admin has a verified TOTP factor (the enrolment card hides then). */
export function useHasTotpFactor(userId: string | undefined) {
  return useQuery({
    queryKey: adminKeys.mfaFactors(userId),
    queryFn: async () => {
      const { data, error } = await supabase.auth.mfa.listFactors()
      if (error) throw error
      return data.totp.some((f) => f.status === 'verified')
    },
    enabled: !!userId,
  })
}

/** A new TOTP factor to show to the authenticator app: its id, QR code (SVG data URL) and setup key. */
export type TotpEnrolment = { factorId: string; qrCode: string; secret: string }

/**
 * Starts a TOTP enrolment. The factor stays unverified until its first code
 * passes useVerifyMfa. An earlier abandoned attempt is unenrolled first:
 * Supabase Auth refuses a second factor with the same (empty) friendly name.
 */
export function useEnrolTotp() {
  return useMutation({
    mutationFn: async (): Promise<TotpEnrolment> => {
      const { data: factors, error: listError } = await supabase.auth.mfa.listFactors()
      if (listError) throw listError
      for (const stale of factors.all.filter((f) => f.factor_type === 'totp' && f.status === 'unverified')) {
        const { error: unenrolError } = await supabase.auth.mfa.unenroll({ factorId: stale.id })
        if (unenrolError) throw unenrolError
      }
      const { data, error } = await supabase.auth.mfa.enroll({ factorType: 'totp' })
      if (error) throw error
      return { factorId: data.id, qrCode: data.totp.qr_code, secret: data.totp.secret }
    },
  })
}

/** The spec's 500 ms check delay, kept so a guess costs at least that long. */
export const ADMIN_CODE_DELAY_MS = 500

export async function verifyAdminAccess(code: string): Promise<AccessResult> {
  const [{ data }] = await Promise.all([
    supabase.rpc('verify_admin_access', { p_code: code }).throwOnError(),
    new Promise((resolve) => setTimeout(resolve, ADMIN_CODE_DELAY_MS)),
  ])
  return data as unknown as AccessResult
}

export function useVerifyAdminAccess() {
  const queryClient = useQueryClient()
  return useMutation({
    mutationFn: verifyAdminAccess,
    onSuccess: (result) => {
      if (result.verified) {
        writeAdminFlag(true)
        void queryClient.invalidateQueries({ queryKey: ['admin', 'gate'] })
      }
    },
  })
}

/** Admin logout (spec §2): clears the flag and signs out; a failure is only logged. */
export async function adminSignOut(): Promise<void> {
  writeAdminFlag(false)
  try {
    const { error } = await supabase.auth.signOut()
    if (error) console.error('admin sign-out', error)
  } catch (error) {
    console.error('admin sign-out', error)
  }
}
