import { SignedInOnly } from '@/components/listings/my-listings-page'
import { MyOffersList } from '@/features/p2p-offers/components/my-offers-list'
import { useAuth } from '@/lib/auth'
import { useDocumentMeta } from '@/lib/document-meta'
import { useWalletTranslation } from '@/lib/i18n/wallet'

function MyOffersPage() {
  const { user } = useAuth()
  return user ? <MyOffersList userId={user.id} /> : null
}

/**
 * /my-p2p-offers (spec §2): the user's own offers with Delete behind a
 * confirmation. Signed out it says 'You must be logged in to view your P2P
 * offers.' with a sign-in link back here.
 */
export function MyP2pOffersRoute() {
  const { t, tWallet } = useWalletTranslation()
  useDocumentMeta(`${tWallet('myOffers.title')} | ${t('app.name')}`, tWallet('myOffers.intro'))
  return (
    <SignedInOnly title={tWallet('myOffers.title')} message={tWallet('myOffers.signedOut')} signIn={tWallet('myOffers.signIn')}>
      <MyOffersPage />
    </SignedInOnly>
  )
}
