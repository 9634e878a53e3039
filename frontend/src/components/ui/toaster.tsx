import { TOAST_DURATION, useToast } from '@/hooks/use-toast'
import { useTranslation } from '@/lib/i18n/i18n'

import {
  Toast,
  ToastClose,
  ToastDescription,
  ToastProvider,
  ToastTitle,
  ToastViewport,
} from './toast'

/** Renders the toast store: one toast at a time, 5 s unless told otherwise. */
function Toaster() {
  const { toasts, dismiss } = useToast()
  const { t } = useTranslation()

  return (
    <ToastProvider duration={TOAST_DURATION} label={t('toast.notification')}>
      {toasts.map(({ id, title, description, variant, duration, open }) => (
        <Toast
          key={id}
          open={open}
          variant={variant}
          duration={duration}
          onOpenChange={(next) => {
            if (!next) dismiss(id)
          }}
        >
          <div className="grid gap-1">
            {title ? <ToastTitle>{title}</ToastTitle> : null}
            {description ? <ToastDescription>{description}</ToastDescription> : null}
          </div>
          <ToastClose label={t('toast.close')} />
        </Toast>
      ))}
      <ToastViewport label={t('toast.region')} />
    </ToastProvider>
  )
}

export { Toaster }
