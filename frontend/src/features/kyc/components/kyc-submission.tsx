import '@/lib/i18n/account'
import { useId } from 'react'
import { Link } from 'react-router'

import { Button } from '@/components/ui/button'
import { paths } from '@/config/paths'
import { formatDate } from '@/lib/format'
import { useTranslation } from '@/lib/i18n/i18n'
import { cn } from '@/lib/utils'

import { kycState, type Kyc } from '../api/get-kyc'
import { KycDocumentPreview } from './kyc-document'
import { KycStateBadge, kycStateFrame, useIdTypeLabel } from './kyc-state'

/** An ID number with all but its last three characters hidden. */
export function maskIdNumber(value: string): string {
  if (value.length <= 3) return value
  return `${'•'.repeat(value.length - 3)}${value.slice(-3)}`
}

/**
 * A submission after it was sent: pending review (with the date sent),
 * approved (with the date decided) or rejected (with the admin's notes and
 * a button to resubmit), then what was sent.
 */
export function KycSubmission({ kyc, onResubmit }: { kyc: Kyc; onResubmit(): void }) {
  const { t } = useTranslation()
  const idTypeLabel = useIdTypeLabel()
  const state = kycState(kyc)
  const decidedOn = formatDate(kyc.reviewed_at ?? kyc.updated_at)
  const statusId = useId()
  const detailsId = useId()

  return (
    <div className="flex flex-col gap-6">
      <section
        aria-labelledby={statusId}
        data-state={state}
        className={cn('flex flex-col items-start gap-3 rounded-xl border p-5', kycStateFrame[state])}
      >
        <KycStateBadge state={state} />
        <h2 id={statusId} className="text-xl font-semibold">
          {state === 'approved' ? t('kyc.approvedTitle') : state === 'rejected' ? t('kyc.rejectedTitle') : t('kyc.pendingTitle')}
        </h2>
        {state === 'approved' && <p>{t('kyc.approvedBody', { date: decidedOn })}</p>}
        {state === 'pending' && <p>{t('kyc.pendingBody', { date: formatDate(kyc.updated_at ?? kyc.created_at) })}</p>}
        {state === 'rejected' && (
          <>
            <p>{t('kyc.rejectedBody', { date: decidedOn })}</p>
            <div className="w-full rounded-md border border-destructive/40 bg-background p-3 text-sm">
              <p className="font-medium">{t('kyc.adminNotes')}</p>
              <p className="mt-1 whitespace-pre-line">{kyc.admin_notes?.trim() || t('kyc.noNotes')}</p>
            </div>
            <Button variant="destructive" onClick={onResubmit}>
              {t('kyc.resubmitButton')}
            </Button>
          </>
        )}
        {state === 'approved' && (
          <Button asChild variant="outline">
            <Link to={paths.profile}>{t('kyc.backToProfile')}</Link>
          </Button>
        )}
      </section>

      <section aria-labelledby={detailsId} className="flex flex-col gap-4">
        <h2 id={detailsId} className="text-lg font-semibold">
          {t('kyc.detailsTitle')}
        </h2>
        <dl className="grid gap-3 text-sm sm:grid-cols-3">
          <div>
            <dt className="text-muted-foreground">{t('kyc.idType')}</dt>
            <dd className="font-medium">{idTypeLabel(kyc.id_type)}</dd>
          </div>
          <div>
            <dt className="text-muted-foreground">{t('kyc.idNumber')}</dt>
            <dd className="font-medium tabular-nums">{maskIdNumber(kyc.id_number)}</dd>
          </div>
          <div>
            <dt className="text-muted-foreground">{t('kyc.address')}</dt>
            <dd className="font-medium">{kyc.physical_address || '—'}</dd>
          </div>
        </dl>
        <ul className="grid gap-4 sm:grid-cols-3">
          {(
            [
              [kyc.photo_url, t('kyc.selfie')],
              [kyc.id_document_front_url, t('kyc.front')],
              [kyc.id_document_back_url, t('kyc.back')],
            ] as const
          ).map(([path, label]) => (
            <li key={label} className="flex flex-col gap-2">
              <span className="text-sm font-medium">{label}</span>
              <KycDocumentPreview path={path} label={label} />
            </li>
          ))}
        </ul>
      </section>
    </div>
  )
}
