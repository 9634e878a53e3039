import { ArrowLeftRightIcon, WalletIcon } from 'lucide-react'

import { LinkButton, MyListingsPage } from '@/components/listings/my-listings-page'
import { paths } from '@/config/paths'
import { toast } from '@/hooks/use-toast'
import { tWallet, useWalletTranslation } from '@/lib/i18n/wallet'

import { useDeleteOffer, useMyOffers } from '../api/my-offers'
import { OfferCard } from './offer-card'

/**
 * The user's own P2P offers, every status, newest first, as cards with
 * Delete. Creating offers happens on /p2p.
 */
export function MyOffersList({ userId }: { userId: string }) {
  const { tWallet: tw } = useWalletTranslation()
  const query = useMyOffers(userId)
  const remove = useDeleteOffer()

  const deleteOffer = (id: string) =>
    remove.mutateAsync(id).then(
      () => toast({ title: tWallet('myOffers.deleted'), variant: 'success' }),
      (error: unknown) => {
        toast({
          title: tWallet('myOffers.deleteFailed'),
          description: error instanceof Error ? error.message : undefined,
          variant: 'destructive',
        })
        throw error
      },
    )

  return (
    <MyListingsPage
      title={tw('myOffers.title')}
      intro={tw('myOffers.intro')}
      actions={
        <>
          <LinkButton to={paths.wallet} variant="outline">
            <WalletIcon aria-hidden="true" />
            {tw('wallet.title')}
          </LinkButton>
          <LinkButton to={paths.p2p}>
            <ArrowLeftRightIcon aria-hidden="true" />
            {tw('myOffers.create')}
          </LinkButton>
        </>
      }
      query={query}
      loadingLabel={tw('myOffers.loading')}
      errorMessage={tw('myOffers.loadFailed')}
      empty={{
        title: tw('myOffers.empty'),
        hint: tw('myOffers.emptyHint'),
        actions: <LinkButton to={paths.p2p}>{tw('myOffers.create')}</LinkButton>,
      }}
      itemKey={(offer) => offer.id}
      renderItem={(offer) => (
        <OfferCard offer={offer} onDelete={() => deleteOffer(offer.id)} deleting={remove.isPending && remove.variables === offer.id} />
      )}
    />
  )
}
