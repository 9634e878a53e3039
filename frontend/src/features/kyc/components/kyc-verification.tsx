import '@/lib/i18n/account'
import { useState } from 'react'

import { ListError, ListLoading } from '@/components/listings/list-states'
import { useTranslation } from '@/lib/i18n/i18n'

import { useKyc } from '../api/get-kyc'
import { KycForm } from './kyc-form'
import { KycSubmission } from './kyc-submission'

/**
 * The body of /kyc-verification: the form before the first submission, the
 * submission's status afterwards, and the form again to resubmit after a
 * rejection.
 */
export function KycVerification({ userId }: { userId: string }) {
  const { t } = useTranslation()
  const query = useKyc(userId)
  const [resubmitting, setResubmitting] = useState(false)

  if (query.isPending) return <ListLoading label={t('kyc.loading')} />
  if (query.isError) return <ListError message={t('kyc.loadFailed')} onRetry={() => void query.refetch()} />

  const kyc = query.data
  if (!kyc) {
    return (
      <div className="flex flex-col gap-5">
        <p className="rounded-lg border bg-muted/40 p-4 text-sm">{t('kyc.intro')}</p>
        <KycForm userId={userId} existing={null} onSubmitted={() => undefined} />
      </div>
    )
  }
  if (resubmitting && kyc.verification_status === 'rejected') {
    return (
      <div className="flex flex-col gap-5">
        <h2 className="text-xl font-semibold">{t('kyc.resubmitTitle')}</h2>
        <KycForm userId={userId} existing={kyc} onSubmitted={() => setResubmitting(false)} onCancel={() => setResubmitting(false)} />
      </div>
    )
  }
  return <KycSubmission kyc={kyc} onResubmit={() => setResubmitting(true)} />
}
