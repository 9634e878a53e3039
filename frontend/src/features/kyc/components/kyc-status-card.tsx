import '@/lib/i18n/account'
import { ShieldCheckIcon } from 'lucide-react'
import { Link } from 'react-router'

import { Button } from '@/components/ui/button'
import { Card, CardContent, CardHeader } from '@/components/ui/card'
import { Spinner } from '@/components/ui/spinner'
import { paths } from '@/config/paths'
import type { MessageKey } from '@/lib/i18n/en'
import { useTranslation } from '@/lib/i18n/i18n'
import { cn } from '@/lib/utils'

import { kycState, useKyc, type KycState } from '../api/get-kyc'
import { KycStateBadge, kycStateFrame } from './kyc-state'

const texts: Record<KycState, { body: MessageKey; action: MessageKey }> = {
  approved: { body: 'kyc.cardApproved', action: 'kyc.verifiedButton' },
  rejected: { body: 'kyc.cardRejected', action: 'kyc.resubmitLink' },
  pending: { body: 'kyc.cardPending', action: 'kyc.viewStatus' },
  none: { body: 'kyc.cardNone', action: 'kyc.start' },
}

/**
 * The profile's identity (KYC) card (spec §4): approved is green with a
 * disabled 'Verified' button; rejected red; anything else yellow 'Pending
 * Review'; no submission 'Not started' with 'Start KYC Verification'. The
 * other buttons lead to /kyc-verification.
 */
export function KycStatusCard({ userId }: { userId: string }) {
  const { t } = useTranslation()
  const query = useKyc(userId)
  const state = kycState(query.data)
  const { body, action } = texts[state]

  return (
    <Card>
      <CardHeader>
        <h2 className="flex items-center gap-2 leading-none font-semibold">
          <ShieldCheckIcon className="size-5 text-primary" aria-hidden="true" />
          {t('kyc.cardTitle')}
        </h2>
      </CardHeader>
      <CardContent>
        {query.isPending ? (
          <Spinner label={t('kyc.loading')} className="py-6" />
        ) : query.isError ? (
          <div role="alert" className="flex flex-col items-start gap-3 text-sm">
            <span className="text-destructive">{t('kyc.loadFailed')}</span>
            <Button variant="outline" size="sm" onClick={() => void query.refetch()}>
              {t('listings.tryAgain')}
            </Button>
          </div>
        ) : (
          <div data-state={state} className={cn('flex flex-col items-start gap-3 rounded-lg border p-4', kycStateFrame[state])}>
            <KycStateBadge state={state} />
            <p className="text-sm">{t(body)}</p>
            {state === 'rejected' && query.data?.admin_notes && (
              <p className="text-sm">
                <span className="font-medium">{t('kyc.reason')}</span> {query.data.admin_notes}
              </p>
            )}
            {state === 'approved' ? (
              <Button disabled className="bg-success text-success-foreground">
                {t(action)}
              </Button>
            ) : (
              <Button asChild variant={state === 'rejected' ? 'destructive' : 'default'}>
                <Link to={paths.kycVerification}>{t(action)}</Link>
              </Button>
            )}
          </div>
        )}
      </CardContent>
    </Card>
  )
}
