import { CoinsIcon } from 'lucide-react'
import { useState } from 'react'

import { Button } from '@/components/ui/button'
import { Sheet, SheetContent, SheetDescription, SheetTitle } from '@/components/ui/sheet'
import { formatKES, formatNestcoins } from '@/lib/format'
import { useTranslation } from '@/lib/i18n/i18n'

import { usePackages, type NestcoinPackage } from '../api/get-packages'
import { MpesaPayStep } from './mpesa-pay-step'

type PackagesSheetProps = {
  open: boolean
  onOpenChange(open: boolean): void
}

/**
 * The bottom sheet of Nestcoin packages (/pricing, /wallet, the listing-fee
 * panel). 'Buy Now' leads to the pay step: M-Pesa's STK push and the
 * outcome arriving live (mpesa-pay-step.tsx).
 */
export function PackagesSheet({ open, onOpenChange }: PackagesSheetProps) {
  const { t } = useTranslation()
  const { packages } = usePackages()
  const [chosen, setChosen] = useState<NestcoinPackage | null>(null)

  return (
    <Sheet
      open={open}
      onOpenChange={(next) => {
        if (!next) setChosen(null)
        onOpenChange(next)
      }}
    >
      <SheetContent closeLabel={t('toast.close')}>
        <SheetTitle>{t('pricing.packagesTitle')}</SheetTitle>
        <SheetDescription>{t('pricing.packagesDescription')}</SheetDescription>
        {chosen ? (
          <MpesaPayStep
            pack={chosen}
            onBack={() => setChosen(null)}
            onDone={() => {
              setChosen(null)
              onOpenChange(false)
            }}
          />
        ) : (
          <ul className="grid gap-3 sm:grid-cols-2 lg:grid-cols-3">
            {packages.map((pack) => (
              <li key={pack.id} className="flex items-center justify-between gap-3 rounded-lg border p-4">
                <div>
                  <p className="font-semibold">{pack.name}</p>
                  <p className="flex items-center gap-1 text-sm text-muted-foreground">
                    <CoinsIcon className="size-4" aria-hidden="true" />
                    {t('pricing.packageCoins', { coins: formatNestcoins(pack.coins) })} · {formatKES(pack.price)}
                  </p>
                </div>
                <Button size="sm" aria-label={t('pricing.buyPackage', { name: pack.name })} onClick={() => setChosen(pack)}>
                  {t('pricing.buyNow')}
                </Button>
              </li>
            ))}
          </ul>
        )}
      </SheetContent>
    </Sheet>
  )
}
