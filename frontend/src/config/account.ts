/**
 * Limits of the signed-in user's own pages (marketplace-spec §5, §9, and the
 * buckets of sql/migrations/0013_storage.sql).
 */

/** Profile: shortest full name (spec §5). */
export const MIN_NAME_LENGTH = 2
/** Longest full name the form accepts. */
export const MAX_NAME_LENGTH = 100

/** Avatar: at most 2 MB (the `avatars` bucket's file_size_limit, 2097152 bytes). */
export const AVATAR_MAX_BYTES = 2 * 1024 * 1024
/** Avatar: JPG, PNG or GIF (the `avatars` bucket's allowed MIME types). */
export const AVATAR_TYPES = ['image/jpeg', 'image/png', 'image/gif'] as const

/** Verification codes are six digits (spec §9); the input takes at most this many characters. */
export const VERIFICATION_CODE_LENGTH = 6
/** The server sends at most one code a minute per channel (request_verification_code). */
export const RESEND_COOLDOWN_SECONDS = 60
/** A code is valid this long (spec §9, request_verification_code). */
export const CODE_VALIDITY_MINUTES = 10

/** The contact channels a user verifies. */
export const contactChannels = ['email', 'phone'] as const
export type ContactChannel = (typeof contactChannels)[number]

/** Identity documents accepted for KYC, as stored in kyc_verifications.id_type. */
export const kycIdTypes = ['National ID', 'Passport', 'Alien ID', 'Maisha Namba'] as const
export type KycIdType = (typeof kycIdTypes)[number]

/**
 * The format of each document's number, checked after spaces and hyphens
 * are removed and letters upper-cased:
 * - National ID: 7 or 8 digits (e.g. 28765431);
 * - Passport: one or two letters, then 7 or 8 digits (e.g. AK1234567,
 *   A1234567): Kenyan passports carry a letter prefix, two letters on the
 *   current e-passport;
 * - Alien ID (foreign nationals' certificate): 6 to 9 digits;
 * - Maisha Namba (the new digital ID's unique personal identifier): 9 to 12 digits.
 */
export const kycIdNumberPatterns: Record<KycIdType, RegExp> = {
  'National ID': /^\d{7,8}$/,
  Passport: /^[A-Z]{1,2}\d{7,8}$/,
  'Alien ID': /^\d{6,9}$/,
  'Maisha Namba': /^\d{9,12}$/,
}

/** Document types whose back carries nothing to check (a passport's photo page is one side). */
export const kycSingleSidedTypes: readonly KycIdType[] = ['Passport']

/** KYC files: JPG, PNG or PDF (the private `kyc` bucket's allowed MIME types). */
export const KYC_FILE_TYPES = ['image/jpeg', 'image/png', 'application/pdf'] as const
/** KYC files: at most 10 MB (the `kyc` bucket's file_size_limit). */
export const KYC_FILE_MAX_BYTES = 10 * 1024 * 1024
/** How long a signed link to a KYC document stays valid, in seconds. */
export const KYC_SIGNED_URL_SECONDS = 600

/** KYC submission states (kyc_verifications.verification_status). */
export const kycStatuses = ['pending', 'approved', 'rejected'] as const
export type KycStatus = (typeof kycStatuses)[number]
