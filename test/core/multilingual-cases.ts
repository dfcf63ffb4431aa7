/**
 * One short policy text per language, with three answers: a verbatim copy of a sentence (grounded),
 * the same sentence with its number changed (not grounded), and an invented sentence (not grounded).
 */
export interface LanguageCase {
  readonly language: string;
  readonly context: string;
  readonly copy: string;
  readonly numberChanged: string;
  readonly invented: string;
}

export const LANGUAGE_CASES: readonly LanguageCase[] = [
  {
    language: "English",
    context: "Returns: unopened items can be returned within 30 days of delivery for a full refund. The store opens every morning at nine.",
    copy: "Unopened items can be returned within 30 days of delivery for a full refund.",
    numberChanged: "Unopened items can be returned within 90 days of delivery for a full refund.",
    invented: "Every customer receives a free laptop with their first order.",
  },
  {
    language: "German",
    context: "Rückgabe: Ungeöffnete Artikel können innerhalb von 30 Tagen nach Lieferung gegen volle Erstattung zurückgegeben werden. Das Geschäft öffnet jeden Morgen um neun Uhr.",
    copy: "Ungeöffnete Artikel können innerhalb von 30 Tagen nach Lieferung gegen volle Erstattung zurückgegeben werden.",
    numberChanged: "Ungeöffnete Artikel können innerhalb von 90 Tagen nach Lieferung gegen volle Erstattung zurückgegeben werden.",
    invented: "Jeder Kunde erhält bei seiner ersten Bestellung einen kostenlosen Laptop.",
  },
  {
    language: "French",
    context: "Retours : les articles non ouverts peuvent être retournés dans un délai de 30 jours après la livraison pour un remboursement complet. Le magasin ouvre chaque matin à neuf heures.",
    copy: "Les articles non ouverts peuvent être retournés dans un délai de 30 jours après la livraison pour un remboursement complet.",
    numberChanged: "Les articles non ouverts peuvent être retournés dans un délai de 90 jours après la livraison pour un remboursement complet.",
    invented: "Chaque client reçoit un ordinateur portable gratuit avec sa première commande.",
  },
  {
    language: "Spanish",
    context: "Devoluciones: los artículos sin abrir se pueden devolver en un plazo de 30 días desde la entrega con reembolso completo. La tienda abre cada mañana a las nueve.",
    copy: "Los artículos sin abrir se pueden devolver en un plazo de 30 días desde la entrega con reembolso completo.",
    numberChanged: "Los artículos sin abrir se pueden devolver en un plazo de 90 días desde la entrega con reembolso completo.",
    invented: "Cada cliente recibe un portátil gratis con su primer pedido.",
  },
  {
    language: "Russian",
    context: "Возврат: неоткрытые товары можно вернуть в течение 30 дней после доставки с полным возмещением. Магазин открывается каждое утро в девять часов.",
    copy: "Неоткрытые товары можно вернуть в течение 30 дней после доставки с полным возмещением.",
    numberChanged: "Неоткрытые товары можно вернуть в течение 90 дней после доставки с полным возмещением.",
    invented: "Каждый покупатель получает бесплатный ноутбук с первым заказом.",
  },
  {
    language: "Arabic",
    context: "الإرجاع: يمكن إرجاع المنتجات غير المفتوحة خلال 30 يوما من التسليم مع استرداد كامل للمبلغ. يفتح المتجر كل صباح في الساعة التاسعة.",
    copy: "يمكن إرجاع المنتجات غير المفتوحة خلال 30 يوما من التسليم مع استرداد كامل للمبلغ.",
    numberChanged: "يمكن إرجاع المنتجات غير المفتوحة خلال 90 يوما من التسليم مع استرداد كامل للمبلغ.",
    invented: "يحصل كل عميل على حاسوب محمول مجاني مع طلبه الأول.",
  },
  {
    language: "Chinese",
    context: "退货政策：未开封的商品可在交货后30天内退货，并获得全额退款。我们的商店每天上午九点开门。",
    copy: "未开封的商品可在交货后30天内退货，并获得全额退款。",
    numberChanged: "未开封的商品可在交货后90天内退货，并获得全额退款。",
    invented: "每位顾客在首次下单时都会免费获得一台笔记本电脑。",
  },
  {
    language: "Japanese",
    context: "返品について：未開封の商品は配達から30日以内であれば全額返金されます。店舗は毎朝九時に開店します。",
    copy: "未開封の商品は配達から30日以内であれば全額返金されます。",
    numberChanged: "未開封の商品は配達から90日以内であれば全額返金されます。",
    invented: "すべてのお客様は最初の注文で無料のノートパソコンを受け取ります。",
  },
  {
    language: "Korean",
    context: "반품 안내: 개봉하지 않은 상품은 배송 후 30일 이내에 반품하면 전액 환불됩니다. 매장은 매일 아침 아홉 시에 문을 엽니다.",
    copy: "개봉하지 않은 상품은 배송 후 30일 이내에 반품하면 전액 환불됩니다.",
    numberChanged: "개봉하지 않은 상품은 배송 후 90일 이내에 반품하면 전액 환불됩니다.",
    invented: "모든 고객은 첫 주문 시 무료 노트북을 받습니다.",
  },
  {
    language: "Thai",
    context: "การคืนสินค้า: สินค้าที่ยังไม่ได้เปิดสามารถคืนได้ภายใน 30 วันหลังจากการจัดส่งและได้รับเงินคืนเต็มจำนวน ร้านเปิดทุกเช้าเวลาเก้าโมง",
    copy: "สินค้าที่ยังไม่ได้เปิดสามารถคืนได้ภายใน 30 วันหลังจากการจัดส่งและได้รับเงินคืนเต็มจำนวน",
    numberChanged: "สินค้าที่ยังไม่ได้เปิดสามารถคืนได้ภายใน 90 วันหลังจากการจัดส่งและได้รับเงินคืนเต็มจำนวน",
    invented: "ลูกค้าทุกคนจะได้รับแล็ปท็อปฟรีเมื่อสั่งซื้อครั้งแรก",
  },
];
