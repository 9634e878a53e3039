import { useMutation } from '@tanstack/react-query'
import { z } from 'zod'

import { env } from '@/config/env'
import { supabase } from '@/lib/supabase'

export const signInSchema = z.object({
  email: z.email({ error: 'validation.emailInvalid' }),
  password: z.string().min(1, { error: 'validation.passwordRequired' }),
})

export type SignInValues = z.infer<typeof signInSchema>

export type SignedInUser = { userId: string; email: string; role: string }

/** Signs in with e-mail and password; returns the user's e-mail and role ('user' when none is stored). */
export async function signIn(values: SignInValues): Promise<SignedInUser> {
  const { data, error } = await supabase.auth.signInWithPassword(values)
  if (error) throw error
  const { data: row } = await supabase.from('user_roles').select('role').eq('user_id', data.user.id).maybeSingle()
  return { userId: data.user.id, email: data.user.email ?? values.email, role: row?.role ?? 'user' }
}

export function useSignIn() {
  return useMutation({ mutationFn: signIn })
}

/** Starts Google sign-in; the browser leaves for Google and comes back to the site root. */
export async function signInWithGoogle(): Promise<void> {
  const { error } = await supabase.auth.signInWithOAuth({
    provider: 'google',
    options: { redirectTo: window.location.origin },
  })
  if (error) throw error
}

export function useSignInWithGoogle() {
  return useMutation({ mutationFn: signInWithGoogle })
}

/** localStorage flag set by the admin access-code screen (spec §3). */
export const ADMIN_VERIFIED_KEY = 'adminVerified'

/**
 * The single administrator (spec §4, §6): the fixed admin e-mail, compared on
 * the client, and the admin role. Either alone is not the admin.
 */
export function isAdminAccount(user: { email?: string | null; role?: string | null }, adminEmail = env.adminEmail): boolean {
  const email = user.email?.trim().toLowerCase()
  return !!email && email === adminEmail.trim().toLowerCase() && user.role === 'admin'
}

/**
 * Where a password sign-in lands (spec §2): the admin account goes to the
 * admin dashboard once the access code was entered on this device, else to
 * the code screen; everyone else returns to the remembered page, or /home.
 */
export function pathAfterSignIn(
  user: { email?: string | null; role?: string | null },
  from: string | undefined,
  adminVerified: boolean,
  adminEmail = env.adminEmail,
): string {
  if (isAdminAccount(user, adminEmail)) return adminVerified ? '/admin/dashboard' : '/admin/login'
  if (from && from.startsWith('/') && !from.startsWith('//') && from !== '/login') return from
  return '/home'
}
