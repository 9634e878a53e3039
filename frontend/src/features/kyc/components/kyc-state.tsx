import '@/lib/i18n/account'
import { Badge } from '@/components/ui/badge'
import type { KycIdType } from '@/config/account'
import type { MessageKey } from '@/lib/i18n/en'
import { useTranslation } from '@/lib/i18n/i18n'

import type { KycState } from '../api/get-kyc'

/** Colours of each state (spec §4): approved green, rejected red, pending yellow. */
export const kycStateFrame: Record<KycState, string> = {
  approved: 'border-success/50 bg-success/10',
  rejected: 'border-destructive/50 bg-destructive/10',
  pending: 'border-warning/60 bg-warning/15',
  none: 'border-border bg-muted/40',
}

const badges = {
  approved: { variant: 'success', label: 'kyc.stateApproved' },
  rejected: { variant: 'destructive', label: 'kyc.stateRejected' },
  pending: { variant: 'warning', label: 'kyc.statePending' },
  none: { variant: 'outline', label: 'kyc.stateNone' },
} as const satisfies Record<KycState, { variant: string; label: MessageKey }>

/** The state as a coloured badge: Approved, Rejected, Pending Review or Not started. */
export function KycStateBadge({ state }: { state: KycState }) {
  const { t } = useTranslation()
  const { variant, label } = badges[state]
  return <Badge variant={variant}>{t(label)}</Badge>
}

const idTypeLabels: Record<KycIdType, MessageKey> = {
  'National ID': 'kyc.typeNationalId',
  Passport: 'kyc.typePassport',
  'Alien ID': 'kyc.typeAlienId',
  'Maisha Namba': 'kyc.typeMaisha',
}

/** A document type in the current language; types the app does not offer are shown as stored. */
export function useIdTypeLabel(): (type: string) => string {
  const { t } = useTranslation()
  return (type) => (type in idTypeLabels ? t(idTypeLabels[type as KycIdType]) : type)
}
