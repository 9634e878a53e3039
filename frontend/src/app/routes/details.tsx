import { useParams } from 'react-router'

import { detailPath } from '@/config/paths'
import { LandDetails } from '@/features/lands/components/land-details'
import { ProductDetails } from '@/features/products/components/product-details'
import { PropertyDetails } from '@/features/properties/components/property-details'
import { ServiceDetails } from '@/features/services/components/service-details'
import { OwnerListingStatus } from '@/features/wallet/components/owner-listing-status'

function useListingId(): string {
  return useParams().id ?? ''
}

// Each detail page tells the listing's owner where it stands with its fee
// and lets them pay when it is not (or no longer) published.

export function PropertyDetailsRoute() {
  const id = useListingId()
  return (
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
  )
}

export function ProductDetailsRoute() {
  const id = useListingId()
  return (
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
  )
}

export function LandDetailsRoute() {
  const id = useListingId()
  return (
    <LandDetails
      key={id}
      id={id}
      ownerNotice={(land) => (
        <OwnerListingStatus kind="land" listing={{ ...land, ownerId: land.userid }} fee={land} detailHref={detailPath.land(land.id)} />
      )}
    />
  )
}

export function ServiceDetailsRoute() {
  const id = useListingId()
  return (
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
  )
}
