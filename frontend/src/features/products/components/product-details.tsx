import type { ReactNode } from 'react'

import { DetailLayout, DetailStatus, ListingOwner, ShareButton, SimilarListings } from '@/components/listings/detail-parts'
import { Gallery } from '@/components/listings/gallery'
import { ListingActions } from '@/components/listings/listing-actions'
import { Fact, LocationLine, PriceTag } from '@/components/listings/listing-facts'
import { Badge } from '@/components/ui/badge'
import { useDocumentMeta } from '@/lib/document-meta'
import { formatDate, formatKES } from '@/lib/format'
import { useTranslation } from '@/lib/i18n/i18n'
import { term } from '@/lib/i18n/terms'
import { imageUrl } from '@/lib/storage'

import type { Product } from '../api/get-products'
import { useProduct, useSimilarProducts } from '../api/get-product'
import { ProductCard } from './product-card'

/** /marketplace/:id: gallery, condition, category, price, owner (KYC badge, contact), share, similar items. */
export function ProductDetails({ id, ownerNotice }: { id: string; ownerNotice?(product: Product): ReactNode }) {
  const { t } = useTranslation()
  const query = useProduct(id)
  const product = query.data
  const similar = useSimilarProducts(product)
  const condition = product?.status === 'New' ? t('product.new') : t('product.used')
  const category = term(product?.category || 'Other')
  useDocumentMeta(
    product ? `${product.name} - ${category} | ${t('app.name')}` : undefined,
    product ? `${product.name} (${condition}), ${formatKES(product.price)}. ${product.description ?? ''}`.slice(0, 160) : undefined,
    { image: product?.images?.[0] ? imageUrl(product.images[0]) : undefined, type: 'article' },
  )

  if (query.isPending) return <DetailStatus status="loading" notFound="" failed="" />
  if (query.isError) return <DetailStatus status="error" notFound="" failed={t('products.loadFailed')} />
  if (!product) return <DetailStatus status="missing" notFound={t('detail.productNotFound')} failed="" />

  return (
    <DetailLayout
      notice={ownerNotice?.(product)}
      media={<Gallery images={product.images} alt={product.name} />}
      description={product.description?.trim() || t('property.noDescription')}
      similar={<SimilarListings items={similar.data} renderItem={(item) => <ProductCard product={item} />} />}
      aside={
        <>
          <div className="flex flex-wrap gap-2">
            <Badge variant={product.status === 'New' ? 'default' : 'secondary'}>{condition}</Badge>
            <Badge variant="outline">{category}</Badge>
            {product.payment_status === 'pending' && <Badge variant="secondary">{t('detail.pendingApproval')}</Badge>}
          </div>
          <h1 className="text-3xl font-bold tracking-tight">{product.name}</h1>
          <LocationLine>{product.location?.trim() || t('property.noLocation')}</LocationLine>
          <PriceTag amount={product.price} className="text-3xl" />
          <dl>
            <Fact label={t('products.categoryFilter')}>{category}</Fact>
            <Fact label={t('products.statusFilter')}>{condition}</Fact>
            <Fact label={t('form.valueRange')}>{term(product.value_range || 'Basic')}</Fact>
            <Fact label={t('detail.listed')}>{formatDate(product.created_at)}</Fact>
          </dl>
          <ListingOwner kind="product" id={product.id} ownerId={product.user_id} />
          <ListingActions kind="product" id={product.id} title={product.name} variant="detail" />
          <ShareButton title={product.name} />
        </>
      }
    />
  )
}
