/**
 * Generated repositories for the target-selection measurement: small but shaped like real ones
 * (a Python shop with a TypeScript front end, a Go service with a TypeScript dashboard, a Maven
 * library service). Callers mention a name more often than the file that defines it, so text
 * counts alone rank the wrong file first. Each task says which file a fix must touch.
 */
export interface TargetTask {
  id: string;
  text: string;
  /** The file a fix must touch. */
  expected: string;
}

export interface GeneratedRepo {
  name: string;
  files: Record<string, string>;
  tasks: TargetTask[];
}

const py = (lines: string[]): string => `${lines.join('\n')}\n`;

function shopRepo(): GeneratedRepo {
  const pages = Object.fromEntries(
    ['home', 'orders', 'account', 'checkout', 'search', 'wishlist'].map((p) => [
      `shop/pages/${p}.py`,
      py(['from shop.billing.invoice import compute_tax, total', '', '', `def render_${p}(request):`, `    # shows the order total, tax and discount for ${p}`, '    tax = compute_tax(total(request.lines))', `    return {"page": "${p}", "total": total(request.lines), "tax": tax, "net": total(request.lines) - compute_tax(total(request.lines))}`]),
    ]),
  );
  return {
    name: 'shop-py-ts',
    files: {
      'pyproject.toml': '[project]\nname = "shop"\nversion = "1.0.0"\n',
      'README.md': '# shop\n\nThe invoice total includes tax and the discount. Shipping cost depends on the zone.\n',
      'shop/__init__.py': '',
      'shop/billing/__init__.py': '',
      'shop/billing/invoice.py': py(['from decimal import Decimal', '', '', 'class Invoice:', '    def __init__(self, lines):', '        self.lines = lines', '', '', 'def total(lines):', '    return sum(l.price * l.qty for l in lines)', '', '', 'def compute_tax(amount):', '    return amount * Decimal("0.2")']),
      'shop/billing/discounts.py': py(['RATES = {"WELCOME": 10, "VIP": 20}', '', '', 'def discount_rate(code):', '    return RATES.get(code, 0)', '', '', 'def apply_discount(order, code):', '    return order.amount * (100 - discount_rate(code)) / 100']),
      'shop/billing/report.py': py(['from shop.billing.invoice import total, compute_tax', 'from shop.billing.discounts import apply_discount', '', '', 'def monthly_report(orders):', '    rows = [total(o.lines) for o in orders]', '    taxes = [compute_tax(total(o.lines)) for o in orders]', '    net = [apply_discount(o, o.code) for o in orders]', '    return {"total": sum(rows), "tax": sum(taxes), "net": sum(net), "gross": total([l for o in orders for l in o.lines])}']),
      'shop/cart.py': py(['from shop.billing.invoice import total, compute_tax', 'from shop.billing.discounts import apply_discount', 'from shop.shipping.rates import shipping_cost', '', '', 'class Cart:', '    def checkout(self, code):', '        subtotal = total(self.lines)', '        tax = compute_tax(total(self.lines))', '        shipping = shipping_cost(self.weight, self.zone)', '        return apply_discount(self, code) + tax + shipping + total(self.extras)']),
      'shop/shipping/__init__.py': '',
      'shop/shipping/rates.py': py(['ZONES = {"EU": 5, "US": 9, "ASIA": 12}', '', '', 'def shipping_cost(weight, zone):', '    return ZONES[zone] + weight * 0.5']),
      'shop/shipping/labels.py': py(['from shop.shipping.rates import shipping_cost', '', '', 'def print_label(order):', '    cost = shipping_cost(order.weight, order.zone)', '    return f"{order.address} ({order.zone}) paid {cost} shipping_cost={shipping_cost(order.weight, order.zone)}"']),
      'shop/users/__init__.py': '',
      'shop/users/accounts.py': py(['from shop.users.tokens import make_reset_token', '', '', 'def register_user(email, password):', '    return {"email": email.lower(), "password": password}', '', '', 'def reset_password(user):', '    return make_reset_token(user.email)']),
      'shop/users/tokens.py': py(['import hashlib', '', '', 'def make_reset_token(email):', '    return hashlib.sha256(email.encode()).hexdigest()[:16]']),
      'shop/api/__init__.py': '',
      'shop/api/routes.py': py(['from shop.users.accounts import register_user, reset_password', 'from shop.cart import Cart', '', '', 'def post_register(body):', '    return register_user(body["email"], body["password"])', '', '', 'def post_reset(user):', '    # reset_password sends the token by mail', '    return reset_password(user)']),
      'tests/test_invoice.py': py(['from shop.billing.invoice import total, compute_tax', '', '', 'def test_total():', '    assert total([]) == 0', '', '', 'def test_compute_tax():', '    assert compute_tax(10) == 2']),
      'tests/test_discounts.py': py(['from shop.billing.discounts import apply_discount, discount_rate', '', '', 'def test_discount_rate():', '    assert discount_rate("VIP") == 20']),
      'tests/test_rates.py': py(['from shop.shipping.rates import shipping_cost', '', '', 'def test_shipping_cost():', '    assert shipping_cost(0, "EU") == 5']),
      'web/package.json': '{"name":"shop-web","private":true}\n',
      'web/src/checkout.ts': "export function formatPrice(cents: number, currency: string): string {\n  return `${(cents / 100).toFixed(2)} ${currency}`;\n}\n",
      'web/src/cartView.ts': "import { formatPrice } from './checkout';\n\nexport function renderCart(total: number): string {\n  return `<p>${formatPrice(total, 'EUR')}</p><small>${formatPrice(0, 'EUR')}</small>`;\n}\n",
      'web/src/orderView.ts': "import { formatPrice } from './checkout';\n\nexport const orderLine = (p: number): string => formatPrice(p, 'EUR') + ' / ' + formatPrice(p * 2, 'EUR');\n",
      ...pages,
    },
    tasks: [
      { id: 'shop-bare-symbol', text: 'compute_tax rounds the wrong way for small amounts', expected: 'shop/billing/invoice.py' },
      { id: 'shop-file-name', text: 'fix the total function in invoice.py', expected: 'shop/billing/invoice.py' },
      { id: 'shop-plain-function', text: 'The total function ignores the quantity of each line', expected: 'shop/billing/invoice.py' },
      { id: 'shop-call-shape', text: 'Calling apply_discount() twice applies the discount twice', expected: 'shop/billing/discounts.py' },
      { id: 'shop-backticked', text: 'Unknown zones make `shipping_cost` raise KeyError', expected: 'shop/shipping/rates.py' },
      { id: 'shop-path', text: 'Reset tokens in shop/users/tokens.py are too short', expected: 'shop/users/tokens.py' },
      { id: 'shop-camel-ts', text: 'formatPrice shows negative amounts without a sign', expected: 'web/src/checkout.ts' },
      { id: 'shop-plain-words', text: 'register user should reject an email without an at sign', expected: 'shop/users/accounts.py' },
      { id: 'shop-conventional', text: 'fix(shipping): rates for ASIA are outdated', expected: 'shop/shipping/rates.py' },
    ],
  };
}

function fleetRepo(): GeneratedRepo {
  const go = (lines: string[]): string => `${lines.join('\n')}\n`;
  return {
    name: 'fleet-go-ts',
    files: {
      'go.mod': 'module example.com/fleet\n\ngo 1.22\n',
      'README.md': '# fleet\n\nParseConfig reads fleet.yaml. The scheduler assigns vehicles from the queue.\n',
      'internal/config/config.go': go(['package config', '', 'import "strings"', '', 'type Config struct{ Region string; Workers int }', '', 'func ParseConfig(text string) (Config, error) {', '\tparts := strings.Split(text, "=")', '\treturn Config{Region: parts[1]}, nil', '}', '', 'func LoadFile(path string) (Config, error) { return ParseConfig(path) }']),
      'internal/config/defaults.go': go(['package config', '', 'const DefaultWorkers = 4', '', 'func WithDefaults(c Config) Config {', '\tif c.Workers == 0 {', '\t\tc.Workers = DefaultWorkers', '\t}', '\treturn c', '}']),
      'internal/config/config_test.go': go(['package config', '', 'import "testing"', '', 'func TestParseConfig(t *testing.T) {', '\tif _, err := ParseConfig("region=eu"); err != nil {', '\t\tt.Fatal(err)', '\t}', '}']),
      'internal/dispatch/scheduler.go': go(['package dispatch', '', 'type Scheduler struct{ q *Queue }', '', 'func (s *Scheduler) Assign(vehicle string) string {', '\treturn s.q.Pop()', '}']),
      'internal/dispatch/queue.go': go(['package dispatch', '', 'type Queue struct{ items []string }', '', 'func NewQueue() *Queue { return &Queue{} }', '', 'func (q *Queue) Push(s string) { q.items = append(q.items, s) }', '', 'func (q *Queue) Pop() string {', '\tv := q.items[0]', '\tq.items = q.items[1:]', '\treturn v', '}']),
      'internal/dispatch/queue_test.go': go(['package dispatch', '', 'import "testing"', '', 'func TestQueue(t *testing.T) {', '\tq := NewQueue()', '\tq.Push("a")', '\tif q.Pop() != "a" {', '\t\tt.Fatal("pop")', '\t}', '}']),
      'internal/tracking/gps.go': go(['package tracking', '', 'import "math"', '', 'type Point struct{ Lat, Lon float64 }', '', 'func Distance(a, b Point) float64 {', '\treturn math.Hypot(a.Lat-b.Lat, a.Lon-b.Lon)', '}']),
      'internal/tracking/eta.go': go(['package tracking', '', 'func ETA(a, b Point, speed float64) float64 {', '\td := Distance(a, b)', '\treturn d / speed + Distance(b, a)*0', '}']),
      'cmd/fleet/main.go': go(['package main', '', 'import (', '\t"example.com/fleet/internal/config"', '\t"example.com/fleet/internal/dispatch"', ')', '', 'func main() {', '\tc, _ := config.ParseConfig("region=eu")', '\tc = config.WithDefaults(c)', '\tc2, _ := config.ParseConfig("region=us")', '\t_ = c2', '\tq := dispatch.NewQueue()', '\tq.Push(c.Region)', '}']),
      'cmd/fleetctl/main.go': go(['package main', '', 'import "example.com/fleet/internal/config"', '', 'func main() {', '\t// ParseConfig errors are printed, ParseConfig output is not', '\t_, _ = config.ParseConfig("")', '}']),
      'dashboard/package.json': '{"name":"dashboard","private":true}\n',
      'dashboard/src/map.ts': "export function drawRoute(points: [number, number][]): string {\n  return points.map(([a, b]) => `${a},${b}`).join(' ');\n}\n",
      'dashboard/src/api.ts': "export async function fetchVehicles(base: string): Promise<unknown> {\n  const res = await fetch(`${base}/vehicles`);\n  return res.json();\n}\n",
      'dashboard/src/app.ts': "import { drawRoute } from './map';\nimport { fetchVehicles } from './api';\n\nexport async function start(): Promise<string> {\n  await fetchVehicles('/api');\n  return drawRoute([[0, 0]]) + drawRoute([[1, 1]]);\n}\n",
    },
    tasks: [
      { id: 'fleet-go-func', text: 'ParseConfig panics on input without an equals sign', expected: 'internal/config/config.go' },
      { id: 'fleet-go-method', text: 'Queue.Pop panics when the queue is empty', expected: 'internal/dispatch/queue.go' },
      { id: 'fleet-go-plain', text: 'the distance function ignores the curvature of the earth', expected: 'internal/tracking/gps.go' },
      { id: 'fleet-go-file', text: 'defaults.go should default to 8 workers', expected: 'internal/config/defaults.go' },
      { id: 'fleet-ts-camel', text: 'fetchVehicles does not check the HTTP status', expected: 'dashboard/src/api.ts' },
      { id: 'fleet-ts-plain-call', text: 'drawRoute() joins points with spaces instead of semicolons', expected: 'dashboard/src/map.ts' },
      { id: 'fleet-go-type', text: 'Scheduler assigns the same vehicle twice', expected: 'internal/dispatch/scheduler.go' },
      { id: 'fleet-go-words', text: 'The ETA is wrong when the speed is zero', expected: 'internal/tracking/eta.go' },
    ],
  };
}

function libraryRepo(): GeneratedRepo {
  const base = 'src/main/java/com/acme/library';
  const test = 'src/test/java/com/acme/library';
  const java = (lines: string[]): string => `${lines.join('\n')}\n`;
  return {
    name: 'library-java',
    files: {
      'pom.xml': '<project><modelVersion>4.0.0</modelVersion><groupId>com.acme</groupId><artifactId>library</artifactId><version>1.0</version></project>\n',
      'README.md': '# library\n\nLoans are renewed by LoanService. Fines are computed by the FineCalculator.\n',
      [`${base}/LoanService.java`]: java(['package com.acme.library;', '', 'import java.time.LocalDate;', '', 'public class LoanService {', '  private final FineCalculator fines = new FineCalculator();', '', '  public LocalDate dueDate(LocalDate start) {', '    return start.plusDays(14);', '  }', '', '  public LocalDate renew(LocalDate due) {', '    return due.plusDays(7);', '  }', '', '  public long computeFine(long daysLate) {', '    return fines.calculate(daysLate);', '  }', '}']),
      [`${base}/FineCalculator.java`]: java(['package com.acme.library;', '', 'public class FineCalculator {', '  public long calculate(long days) {', '    return days * 50;', '  }', '}']),
      [`${base}/Catalog.java`]: java(['package com.acme.library;', '', 'import java.util.ArrayList;', 'import java.util.List;', '', 'public class Catalog {', '  private final List<String> titles = new ArrayList<>();', '', '  public List<String> search(String query) {', '    return titles.stream().filter(t -> t.contains(query)).toList();', '  }', '', '  public void addBook(String title) {', '    titles.add(title);', '  }', '}']),
      [`${base}/InventoryRepository.java`]: java(['package com.acme.library;', '', 'import java.sql.Connection;', '', 'public class InventoryRepository {', '  public int count(Connection c) throws Exception {', '    return c.createStatement().executeQuery("select count(*) from books").getInt(1);', '  }', '}']),
      [`${base}/api/LoanController.java`]: java(['package com.acme.library.api;', '', 'import com.acme.library.LoanService;', 'import java.time.LocalDate;', '', 'public class LoanController {', '  private final LoanService loanService = new LoanService();', '', '  public String renew(String id) {', '    LocalDate due = loanService.dueDate(LocalDate.now());', '    return loanService.renew(due).toString() + loanService.renew(loanService.renew(due));', '  }', '', '  public long fine(long days) {', '    return loanService.computeFine(days) + loanService.computeFine(0);', '  }', '}']),
      [`${base}/notify/ReminderJob.java`]: java(['package com.acme.library.notify;', '', 'import com.acme.library.LoanService;', 'import java.time.LocalDate;', '', 'public class ReminderJob {', '  private final LoanService loans = new LoanService();', '', '  public void run() {', '    // remind when dueDate is near; dueDate is computed per loan', '    LocalDate d = loans.dueDate(LocalDate.now());', '    System.out.println(loans.dueDate(d));', '  }', '}']),
      [`${base}/search/SearchController.java`]: java(['package com.acme.library.search;', '', 'import com.acme.library.Catalog;', '', 'public class SearchController {', '  private final Catalog catalog = new Catalog();', '', '  public Object find(String q) {', '    return catalog.search(q.trim()).size() + catalog.search(q).size();', '  }', '}']),
      [`${test}/LoanServiceTest.java`]: java(['package com.acme.library;', '', 'class LoanServiceTest {', '  void dueDateIsTwoWeeks() {', '    new LoanService().dueDate(java.time.LocalDate.now());', '  }', '}']),
      [`${test}/FineCalculatorTest.java`]: java(['package com.acme.library;', '', 'class FineCalculatorTest {', '  void fiftyPerDay() {', '    new FineCalculator().calculate(2);', '  }', '}']),
    },
    tasks: [
      { id: 'lib-class', text: 'FineCalculator charges for the day the book was returned', expected: `${base}/FineCalculator.java` },
      { id: 'lib-bare-method', text: 'computeFine overflows for very late books', expected: `${base}/LoanService.java` },
      { id: 'lib-qualified', text: 'LoanService.renew should refuse a third renewal', expected: `${base}/LoanService.java` },
      { id: 'lib-plain-method', text: 'the search method is case sensitive', expected: `${base}/Catalog.java` },
      { id: 'lib-class-leak', text: 'InventoryRepository leaks JDBC statements', expected: `${base}/InventoryRepository.java` },
      { id: 'lib-file', text: 'Catalog.java: addBook accepts duplicate titles', expected: `${base}/Catalog.java` },
      { id: 'lib-due-date', text: 'dueDate ignores library holidays', expected: `${base}/LoanService.java` },
      { id: 'lib-words', text: 'The reminder job prints reminders for returned books', expected: `${base}/notify/ReminderJob.java` },
    ],
  };
}

export function generatedRepos(): GeneratedRepo[] {
  return [shopRepo(), fleetRepo(), libraryRepo()];
}
