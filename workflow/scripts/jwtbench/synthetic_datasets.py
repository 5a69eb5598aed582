"""Deterministic stand-ins for seed 000's Kaggle datasets, used when the real ones are absent.

Each generator writes a CSV with the real dataset's header (column names and order) and
values of the same kinds (ids, names, dates, amounts, category labels, free text), row
after row from one seeded generator until the file reaches the requested size. Nothing
here comes from the real datasets but their column names; every value is invented.
The same (generator, size, seed) gives the same bytes on every run and machine: only
`random.Random.random()` is used (its sequence is stable across Python versions), and
the CSV is written with "\\n" line ends and minimal quoting.
"""

import random

from jwtbench import result_tables

FIRST = (
    "Ada Bruno Chloé Dario Elif Farah Gustav Hana Ivan Jana Kofi Lena Mateo Nadia Oskar "
    "Priya Quinn Rafael Sanna Tomás Uma Vikram Wen Ximena Yusuf Zoë Amara Björn Chen "
    "Dmitri Esther Femi Greta Hiro Inés José Kai Luca Mei Nour Olga Pablo Rhea Søren "
    "Tariq Ulla Vera Wiktor Yara"
).split()
LAST = (
    "Abbott Bauer Castillo Dubois Eriksen Fischer García Haddad Ito Jansen Kowalski "
    "Lindqvist Moreau Nakamura Okafor Petrov Quispe Rossi Schmidt Tanaka Ueda Varga "
    "Weber Xu Yilmaz Zhang Álvarez Brandt Costa Dahl Novak Øster Müller Sørensen "
    "Hughes Iyer Kim Lopez Mensah Nguyen"
).split()
CITIES = (
    "Lake Andrea|North Brianport|Port Celina|East Dorian|South Evaton|Fairhaven|"
    "Glenmore|Hollowbrook|West Irving|Juniper Falls|Kingsbridge|Lowell Bay|"
    "Maple Crossing|Newcastle Hill|Oakridge|Pinecrest|Queensford|Riverton|"
    "Stonegate|Thornbury|Upton Vale|Valemont|Westfield|Yarrow Point"
).split("|")
WORDS = (
    "a an the of in on with and for from after before against between through "
    "young old lost secret last first final hidden broken wild quiet bright dark "
    "family friends detective city village island ocean mountain kingdom school "
    "doctor chef pilot singer thief soldier teacher artist stranger brothers sisters "
    "journey mystery love war dream storm summer winter night morning river road "
    "finds returns must faces discovers learns fights builds loses chases uncovers "
    "together apart forever again beyond inside café naïve señor déjà vu"
).split()
MONTHS = ("January February March April May June July August September October November December").split()


class Values:
    """Value makers over one seeded generator; only rng.random() is ever called."""

    def __init__(self, seed):
        self.rng = random.Random(seed)

    def below(self, n):
        return int(self.rng.random() * n)

    def between(self, low, high):
        return low + self.below(high - low + 1)

    def pick(self, options):
        return options[self.below(len(options))]

    def chance(self, p):
        return self.rng.random() < p

    def decimal(self, low, high, places):
        return f"{low + self.rng.random() * (high - low):.{places}f}"

    def person(self):
        return f"{self.pick(FIRST)} {self.pick(LAST)}"

    def some(self, options, low, high, sep=", "):
        """Between low and high distinct options, in the order first drawn."""
        chosen = []
        for _ in range(self.between(low, high)):
            option = self.pick(options)
            if option not in chosen:
                chosen.append(option)
        return sep.join(chosen)

    def sentence(self, low, high):
        words = [self.pick(WORDS) for _ in range(self.between(low, high))]
        return " ".join(words).capitalize() + "."

    def iso_date(self, first_year, last_year):
        return f"{self.between(first_year, last_year)}-{self.between(1, 12):02d}-{self.between(1, 28):02d}"

    def hex_id(self, prefix, low, high):
        return f"{prefix}{self.between(low, high):x}"


# --- Amazon Prime users (Kaggle arnavsmayan/amazon-prime-userbase-dataset) --------------

AMAZON_COLUMNS = [
    "User ID",
    "Name",
    "Email Address",
    "Username",
    "Date of Birth",
    "Gender",
    "Location",
    "Membership Start Date",
    "Membership End Date",
    "Subscription Plan",
    "Payment Information",
    "Renewal Status",
    "Usage Frequency",
    "Purchase History",
    "Favorite Genres",
    "Devices Used",
    "Engagement Metrics",
    "Feedback/Ratings",
    "Customer Support Interactions",
]


def amazon_prime_users(values, number):
    name = values.person()
    handle = "".join(ch for ch in name.lower() if ch.isascii() and ch.isalpha()) + str(values.below(100))
    start = values.iso_date(2024, 2024)
    return [
        str(number),
        name,
        f"{handle}@example.{values.pick(['com', 'net', 'org'])}",
        handle,
        values.iso_date(1950, 2006),
        values.pick(["Male", "Female"]),
        values.pick(CITIES),
        start,
        str(int(start[:4]) + 1) + start[4:],
        values.pick(["Annual", "Monthly"]),
        values.pick(["Visa", "Mastercard", "Amex"]),
        values.pick(["Auto-renew", "Manual"]),
        values.pick(["Frequent", "Regular", "Occasional"]),
        values.pick(["Electronics", "Books", "Clothing"]),
        values.pick(["Action", "Comedy", "Documentary", "Drama", "Horror", "Romance", "Sci-Fi"]),
        values.pick(["Smart TV", "Smartphone", "Tablet"]),
        values.pick(["Low", "Medium", "High"]),
        values.decimal(3.0, 5.0, 1),
        str(values.between(0, 10)),
    ]


# --- Credit score users (Kaggle parisrohan/credit-score-classification, train.csv) ------

CREDIT_COLUMNS = [
    "ID",
    "Customer_ID",
    "Month",
    "Name",
    "Age",
    "SSN",
    "Occupation",
    "Annual_Income",
    "Monthly_Inhand_Salary",
    "Num_Bank_Accounts",
    "Num_Credit_Card",
    "Interest_Rate",
    "Num_of_Loan",
    "Type_of_Loan",
    "Delay_from_due_date",
    "Num_of_Delayed_Payment",
    "Changed_Credit_Limit",
    "Num_Credit_Inquiries",
    "Credit_Mix",
    "Outstanding_Debt",
    "Credit_Utilization_Ratio",
    "Credit_History_Age",
    "Payment_of_Min_Amount",
    "Total_EMI_per_month",
    "Amount_invested_monthly",
    "Payment_Behaviour",
    "Monthly_Balance",
    "Credit_Score",
]
LOANS = [
    "Auto Loan",
    "Credit-Builder Loan",
    "Personal Loan",
    "Home Equity Loan",
    "Mortgage Loan",
    "Student Loan",
    "Debt Consolidation Loan",
    "Payday Loan",
]
OCCUPATIONS = [
    "Scientist",
    "Teacher",
    "Engineer",
    "Entrepreneur",
    "Developer",
    "Lawyer",
    "Media_Manager",
    "Doctor",
    "Journalist",
    "Manager",
    "Accountant",
    "Musician",
    "Mechanic",
    "Writer",
    "Architect",
    "_______",
]


def credit_score_users(values, number):
    loans = [values.pick(LOANS) for _ in range(values.between(0, 5))]
    loan_text = ", ".join(loans[:-1]) + (", and " if len(loans) > 1 else "") + (loans[-1] if loans else "")
    income = float(values.decimal(7000, 180000, 2))
    years = values.between(1, 33)
    return [
        values.hex_id("0x", 0x1600, 0x25000),
        values.hex_id("CUS_0x", 0x1000, 0xFFFF),
        values.pick(MONTHS[:8]),
        values.person(),
        str(values.between(14, 56)),
        f"{values.between(100, 999)}-{values.between(10, 99)}-{values.between(1000, 9999)}",
        values.pick(OCCUPATIONS),
        f"{income:.2f}",
        f"{income / 12 * 0.96:.6f}",
        str(values.between(0, 11)),
        str(values.between(0, 11)),
        str(values.between(1, 34)),
        str(len(loans)),
        loan_text or "Not Specified",
        str(values.between(0, 62)),
        str(values.between(0, 28)),
        values.decimal(-6, 30, 2),
        f"{values.between(0, 17)}.0",
        values.pick(["Good", "Standard", "Bad", "_"]),
        values.decimal(0, 5000, 2),
        str(20 + values.rng.random() * 30),
        f"{years} Years and {values.between(0, 11)} Months",
        values.pick(["Yes", "No", "NM"]),
        str(values.rng.random() * 400),
        str(values.rng.random() * 800),
        f"{values.pick(['High', 'Low'])}_spent_{values.pick(['Small', 'Medium', 'Large'])}_value_payments",
        str(100 + values.rng.random() * 1200),
        values.pick(["Good", "Standard", "Poor"]),
    ]


# --- Netflix titles (Kaggle shivamb/netflix-shows, netflix_titles.csv) ------------------

NETFLIX_COLUMNS = [
    "show_id",
    "type",
    "title",
    "director",
    "cast",
    "country",
    "date_added",
    "release_year",
    "rating",
    "duration",
    "listed_in",
    "description",
]
COUNTRIES = [
    "United States",
    "India",
    "United Kingdom",
    "Canada",
    "France",
    "Japan",
    "South Korea",
    "Spain",
    "Mexico",
    "Germany",
    "Brazil",
    "Nigeria",
    "Türkiye",
    "Egypt",
    "Argentina",
    "Sweden",
]
GENRES = [
    "Dramas",
    "Comedies",
    "International Movies",
    "Documentaries",
    "Action & Adventure",
    "Independent Movies",
    "Thrillers",
    "Romantic Movies",
    "Kids' TV",
    "Docuseries",
    "International TV Shows",
    "TV Dramas",
    "Crime TV Shows",
    "Stand-Up Comedy",
]


def netflix_titles(values, number):
    movie = values.chance(0.7)
    year = values.between(1960, 2021)
    return [
        f"s{number}",
        "Movie" if movie else "TV Show",
        values.sentence(1, 5)[:-1],
        values.person() if values.chance(0.7) else "",
        ", ".join(values.person() for _ in range(values.between(0, 12))),
        values.some(COUNTRIES, 0, 3),
        f"{values.pick(MONTHS)} {values.between(1, 28)}, {values.between(max(year, 2008), 2021)}",
        str(year),
        values.pick(["TV-MA", "TV-14", "TV-PG", "R", "PG-13", "PG", "TV-Y7", "NR"]),
        f"{values.between(60, 180)} min" if movie else f"{values.between(1, 9)} Season{'s' * values.chance(0.5)}",
        values.some(GENRES, 1, 3),
        values.sentence(12, 28),
    ]


GENERATORS = {
    "amazon-prime-users": (AMAZON_COLUMNS, amazon_prime_users),
    "credit-score-users": (CREDIT_COLUMNS, credit_score_users),
    "netflix-titles": (NETFLIX_COLUMNS, netflix_titles),
}


def columns(generator):
    return list(GENERATORS[generator][0])


def generate(generator, target_bytes, seed):
    """The CSV bytes: the header, then rows until the file is at least target_bytes."""
    header, make_row = GENERATORS[generator]
    values = Values(f"{generator}/{seed}")
    parts = [result_tables.csv_line(header)]
    size = len(parts[0])
    number = 0
    while size < target_bytes:
        number += 1
        parts.append(result_tables.csv_line(make_row(values, number)))
        size += len(parts[-1])
    return b"".join(parts)
