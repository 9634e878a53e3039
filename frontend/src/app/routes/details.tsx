import type { ReactNode } from 'react'
import { useParams } from 'react-router'

import { ListingContactProvider } from '@/components/listings/listing-contact'
import { detailPath } from '@/config/paths'
import { LandDetails } from '@/features/lands/components/land-details'
import { ContactOwnerButton } from '@/features/messages/components/contact-owner-button'
import { ProductDetails } from '@/features/products/components/product-details'
import { PropertyDetails } from '@/features/properties/components/property-details'
import { SaveActionsProvider } from '@/features/saved/components/save-button'
import { ServiceDetails } from '@/features/services/components/service-details'
import { OwnerListingStatus } from '@/features/wallet/components/owner-listing-status'

function useListingId(): string {
  return useParams().id ?? ''
}

/** Puts "Message the owner" (a signed-in non-owner writes to the owner) in the page's owner block. */
function withContactOwner(page: ReactNode) {
  return <ListingContactProvider component={ContactOwnerButton}>{page}</ListingContactProvider>
}

// Each detail page tells the listing's owner where it stands with its fee
// and lets them pay when it is not (or no longer) published. The heart
// (save) sits on the page and on its similar listings.

export function PropertyDetailsRoute() {
  const id = useListingId()
  return withContactOwner(
    <SaveActionsProvider>
      <PropertyDetails
        key={id}
        id={id}
        ownerNotice={(property) => (
          <OwnerListingStatus
            kind="property"
            listing={{ ...property, ownerId: property.user_id }}
            fee={property}
            detailHref={detailPath.property(property.id)}
          />
        )}
      />
    </SaveActionsProvider>
  )
}

export function ProductDetailsRoute() {
  const id = useListingId()
  return withContactOwner(
    <SaveActionsProvider>
      <ProductDetails
        key={id}
        id={id}
        ownerNotice={(product) => (
          <OwnerListingStatus
            kind="product"
            listing={{ ...product, ownerId: product.user_id }}
            fee={{ type: product.category, price: product.price }}
            detailHref={detailPath.product(product.id)}
          />
        )}
      />
    </SaveActionsProvider>
  )
}

export function LandDetailsRoute() {
  const id = useListingId()
  return withContactOwner(
    <SaveActionsProvider>
      <LandDetails
        key={id}
        id={id}
        ownerNotice={(land) => (
          <OwnerListingStatus kind="land" listing={{ ...land, ownerId: land.userid }} fee={land} detailHref={detailPath.land(land.id)} />
        )}
      />
    </SaveActionsProvider>
  )
}

export function ServiceDetailsRoute() {
  const id = useListingId()
  return withContactOwner(
    <SaveActionsProvider>
      <ServiceDetails
        key={id}
        id={id}
        ownerNotice={(provider) => (
          <OwnerListingStatus
            kind="service"
            listing={{ ...provider, ownerId: provider.userid }}
            fee={{ type: provider.category }}
            detailHref={detailPath.service(provider.id)}
          />
        )}
      />
    </SaveActionsProvider>
  )
}
