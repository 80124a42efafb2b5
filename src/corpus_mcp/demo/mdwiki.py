"""Demo MDWiki archive: mwoffliner 1.17.5, ActionParse, **no full-text index**.

Like the real 2025 MDWiki builds (``--withoutZimFullTextIndex``, ``--customMainPage=
App/IntroPage``), search can only use the title index. Most pages use the legacy parser
(flat layout); pages mirrored from Wikipedia carry Parsoid ``<section>`` wrappers, so
one archive mixes both layouts (zim-formats.md §1.11).
"""

from __future__ import annotations

from pathlib import Path

from corpus_mcp.demo._mediawiki import (
    Article,
    Section,
    article_entries,
    asset_pages,
    href_to,
    navbox,
)
from corpus_mcp.zim.writer import write_zim

HOST = "mdwiki.org"
FILE = "mdwiki/mdwiki_en_demo_maxi_2025-11.zim"
MAIN_PATH = "App/IntroPage"

METADATA: dict[str, str] = {
    "Name": "mdwiki_en_demo",
    "Title": "MDWiki Medical Encyclopedia",
    "Description": "Healthcare articles curated by WikiProjectMed",
    "Creator": "Mdwiki",
    "Publisher": "WikiProjectMed",
    "Date": "2025-11-12",
    "Language": "eng",
    "Flavour": "maxi",
    "Tags": "medical;mdwiki;_category:other;_pictures:yes;_videos:no;_details:yes;_ftindex:no",
    "Scraper": "mwoffliner 1.17.5",
    "Source": HOST,
}


def _disease(
    title: str,
    lead: tuple[str, ...],
    sections: tuple[tuple[str, str], ...],
    *,
    specialty: str,
    redirects: tuple[str, ...] = (),
    section_redirects: tuple[tuple[str, str], ...] = (),
    parsoid: bool = False,
) -> Article:
    """MDWiki's house style: an infobox, a short lead, then flat level-2 sections."""
    return Article(
        title=title,
        infobox=(("Specialty", specialty),),
        lead=lead,
        sections=tuple(Section(2, heading, (text,)) for heading, text in sections),
        redirects=redirects,
        section_redirects=section_redirects,
        layout="parsoid" if parsoid else "flat",
        navbox="medicine",
    )


DIABETES = _disease(
    "Diabetes mellitus",
    (
        "<b>Diabetes mellitus</b> is a group of metabolic disorders in which blood sugar "
        "levels stay high over a prolonged period. Symptoms include frequent urination, "
        "increased thirst and increased hunger.",
        "If left untreated, diabetes can cause diabetic ketoacidosis, heart disease, stroke, "
        "kidney failure, foot ulcers and damage to the eyes. About 1 in 11 adults have it, "
        "and type 2 diabetes makes up about 90% of cases.",
    ),
    (
        (
            "Signs and symptoms",
            "Weight loss, blurred vision, tiredness and slow-healing "
            "sores are common. In type 1 diabetes the symptoms often develop over weeks.",
        ),
        (
            "Cause",
            "Type 1 results from the pancreas failing to produce enough insulin "
            "because beta cells are lost. Type 2 begins with insulin resistance, a condition "
            "in which cells fail to respond to insulin properly; excess body weight and too "
            "little exercise are the main causes.",
        ),
        (
            "Diagnosis",
            "Diabetes is diagnosed by a fasting plasma glucose of 7.0 mmol/L "
            "(126 mg/dL) or more, a glucose of 11.1 mmol/L two hours after an oral glucose "
            "tolerance test, or an HbA1c of 48 mmol/mol (6.5%) or more.",
        ),
        (
            "Management",
            "Type 1 diabetes must be managed with insulin injections. Type 2 may "
            "be treated with medications such as metformin, with or without insulin, together "
            "with a healthy diet, exercise and weight loss.",
        ),
        (
            "Complications",
            "Long-term complications include cardiovascular disease, diabetic "
            "retinopathy, diabetic nephropathy and neuropathy; acute ones include diabetic "
            "ketoacidosis and hypoglycemia from treatment.",
        ),
    ),
    specialty="Endocrinology",
    redirects=("Diabetes", "DM", "Sugar diabetes"),
    section_redirects=(("Diabetic ketoacidosis (complication)", "Complications"),),
)

TYPE1 = _disease(
    "Type 1 diabetes",
    (
        "<b>Type 1 diabetes</b> is an autoimmune disease that results in the destruction of "
        "the insulin-producing beta cells of the pancreas. Before treatment it results in "
        "high blood sugar levels.",
        "Classic symptoms are frequent urination, increased thirst, increased hunger and "
        "weight loss. It usually begins in children and young adults.",
    ),
    (
        (
            "Treatment",
            "Insulin is required for survival: multiple daily injections or an "
            "insulin pump, with blood sugar monitoring and carbohydrate counting.",
        ),
        (
            "Prognosis",
            "With good control, people can live long lives; complications "
            "resemble those of type 2 diabetes.",
        ),
    ),
    specialty="Endocrinology",
    redirects=("Juvenile diabetes", "Insulin-dependent diabetes"),
    parsoid=True,
)

HYPERTENSION = _disease(
    "Hypertension",
    (
        "<b>Hypertension</b>, also known as <b>high blood pressure</b>, is a long-term "
        "medical condition in which the blood pressure in the arteries is persistently "
        "elevated. It usually does not cause symptoms.",
        "Long-term high blood pressure is a major risk factor for stroke, coronary artery "
        "disease, heart failure, atrial fibrillation, peripheral arterial disease, vision "
        "loss and chronic kidney disease.",
    ),
    (
        (
            "Diagnosis",
            "Blood pressure is measured with a cuff on several occasions; "
            "ambulatory monitoring over 24 hours confirms the diagnosis and excludes white coat "
            "hypertension.",
        ),
        (
            "Treatment",
            "Lifestyle changes include less salt, weight loss, exercise and a diet "
            "rich in fruit and vegetables. Medications include thiazide diuretics, calcium "
            "channel blockers such as amlodipine, ACE inhibitors and angiotensin receptor "
            "blockers.",
        ),
        (
            "Epidemiology",
            "Hypertension affects about a third of adults worldwide and causes "
            "more deaths than any other modifiable risk factor.",
        ),
    ),
    specialty="Cardiology",
    redirects=("High blood pressure", "HTN"),
    parsoid=True,
)

ASTHMA = _disease(
    "Asthma",
    (
        "<b>Asthma</b> is a long-term inflammatory disease of the airways of the lungs. It "
        "causes recurring episodes of wheezing, coughing, chest tightness and shortness of "
        "breath.",
        "Triggers include allergens, cold air, exercise, smoke and respiratory infections. "
        "There is no cure, but symptoms can be prevented by avoiding triggers and by using "
        "inhaled corticosteroids.",
    ),
    (
        (
            "Diagnosis",
            "Diagnosis rests on the pattern of symptoms and spirometry showing "
            "airflow obstruction that improves after a bronchodilator.",
        ),
        (
            "Management",
            "Acute symptoms are treated with a short-acting beta-2 agonist such "
            "as salbutamol; long-term control uses inhaled corticosteroids such as "
            "budesonide. Severe attacks need oxygen and systemic corticosteroids.",
        ),
        (
            "Epidemiology",
            "About 260 million people have asthma, and it causes around "
            "450,000 deaths a year, mostly in low- and middle-income countries.",
        ),
    ),
    specialty="Pulmonology",
    redirects=("Bronchial asthma",),
    section_redirects=(("Asthma attack", "Management"),),
)

METFORMIN = _disease(
    "Metformin",
    (
        "<b>Metformin</b> is the first-line medication for the treatment of type 2 "
        "diabetes, particularly in people who are overweight. It is taken by mouth.",
        "It lowers blood sugar by decreasing glucose production in the liver and increasing "
        "insulin sensitivity. It does not usually cause low blood sugar when used alone.",
    ),
    (
        (
            "Side effects",
            "Common side effects are diarrhea, nausea and abdominal pain. "
            "Lactic acidosis is a rare serious side effect, mainly with kidney failure.",
        ),
        (
            "Dosage",
            "Treatment starts at 500 mg once or twice daily with meals and is "
            "increased gradually to limit gastrointestinal upset.",
        ),
    ),
    specialty="Endocrinology",
    redirects=("Glucophage",),
)

INSULIN = _disease(
    "Insulin (medication)",
    (
        "<b>Insulin</b> is a peptide hormone used as a medication to treat high blood sugar, "
        "including type 1 diabetes, type 2 diabetes, gestational diabetes and complications "
        "such as diabetic ketoacidosis.",
        "It is usually given by injection under the skin, but some forms may also be used "
        "by injection into a vein or muscle.",
    ),
    (
        (
            "Types",
            "Rapid-acting insulins such as insulin lispro are taken with meals; "
            "long-acting insulins such as insulin glargine provide a basal level.",
        ),
        (
            "Side effects",
            "The most common side effect is low blood sugar (hypoglycemia); "
            "others include pain at the injection site and weight gain.",
        ),
    ),
    specialty="Endocrinology",
    redirects=("Insulin", "Insulin therapy"),
)

SALBUTAMOL = _disease(
    "Salbutamol",
    (
        "<b>Salbutamol</b>, also known as <b>albuterol</b>, is a medication that opens up "
        "the medium and large airways in the lungs. It is a short-acting beta-2 adrenergic "
        "receptor agonist used to treat asthma attacks and COPD.",
        "It is usually given by an inhaler or nebulizer and acts within 15 minutes.",
    ),
    (
        (
            "Side effects",
            "Common side effects include shakiness, headache, fast heart rate "
            "and low blood potassium.",
        ),
    ),
    specialty="Pulmonology",
    redirects=("Albuterol", "Ventolin"),
)

AMLODIPINE = _disease(
    "Amlodipine",
    (
        "<b>Amlodipine</b> is a calcium channel blocker medication used to treat high blood "
        "pressure and coronary artery disease. It is taken by mouth once a day.",
        "Common side effects include swelling of the ankles, tiredness, abdominal pain and "
        "flushing.",
    ),
    (
        (
            "Mechanism",
            "It relaxes the smooth muscle in arterial walls, which lowers "
            "peripheral resistance and so blood pressure.",
        ),
    ),
    specialty="Cardiology",
    redirects=("Norvasc",),
)

HEART_FAILURE = _disease(
    "Heart failure",
    (
        "<b>Heart failure</b> is a syndrome in which the heart cannot pump enough blood to "
        "meet the needs of the body. Shortness of breath, tiredness and leg swelling are "
        "common symptoms.",
        "Common causes include coronary artery disease, high blood pressure, atrial "
        "fibrillation and valvular heart disease.",
    ),
    (
        (
            "Treatment",
            "Treatment includes lifestyle changes, ACE inhibitors, beta blockers, "
            "mineralocorticoid antagonists, SGLT2 inhibitors and diuretics for fluid overload.",
        ),
    ),
    specialty="Cardiology",
    redirects=("Congestive heart failure", "CHF"),
    parsoid=True,
)

PNEUMONIA = _disease(
    "Pneumonia",
    (
        "<b>Pneumonia</b> is an inflammatory condition of the lung primarily affecting the "
        "small air sacs known as alveoli. Symptoms typically include productive or dry "
        "cough, chest pain, fever and difficulty breathing.",
        "It is usually caused by infection with viruses or bacteria; Streptococcus "
        "pneumoniae is the most common bacterial cause.",
    ),
    (
        (
            "Treatment",
            "Bacterial pneumonia is treated with antibiotics such as amoxicillin; "
            "oxygen is given when blood oxygen is low.",
        ),
        ("Prevention", "Vaccines against pneumococcus and influenza reduce the risk."),
    ),
    specialty="Pulmonology",
    redirects=("Lung infection",),
    parsoid=True,
)

PARACETAMOL = _disease(
    "Paracetamol",
    (
        "<b>Paracetamol</b>, also known as <b>acetaminophen</b>, is a medication used to "
        "treat fever and mild to moderate pain. It is taken by mouth, rectally or by "
        "injection into a vein.",
        "At standard doses it is safe, but overdose can cause liver failure.",
    ),
    (
        (
            "Dosage",
            "The usual adult dose is 500 mg to 1 g every four to six hours, with a "
            "maximum of 4 g a day.",
        ),
    ),
    specialty="Pharmacology",
    redirects=("Acetaminophen", "Tylenol"),
)

HYPOGLYCEMIA = _disease(
    "Hypoglycemia",
    (
        "<b>Hypoglycemia</b>, also called <b>low blood sugar</b>, is a fall in blood sugar "
        "to levels below normal, typically below 3.9 mmol/L (70 mg/dL). Symptoms include "
        "sweating, shakiness, confusion and, in severe cases, seizures.",
        "It most often occurs in people with diabetes treated with insulin or sulfonylureas.",
    ),
    (
        (
            "Treatment",
            "Eat or drink 15 g of fast-acting carbohydrate such as glucose tablets "
            "and recheck after 15 minutes; glucagon is used when a person cannot swallow.",
        ),
    ),
    specialty="Endocrinology",
    redirects=("Low blood sugar",),
)

ARTICLES: tuple[Article, ...] = (
    DIABETES, TYPE1, HYPERTENSION, ASTHMA, METFORMIN, INSULIN, SALBUTAMOL, AMLODIPINE,
    HEART_FAILURE, PNEUMONIA, PARACETAMOL, HYPOGLYCEMIA,
)  # fmt: skip


def _intro_page() -> Article:
    links = "".join(
        f'<li><a href="{href_to(MAIN_PATH, a.path)}">{a.title}</a></li>' for a in ARTICLES
    )
    return Article(
        title=MAIN_PATH,
        lead=(
            "Welcome to the <b>MDWiki</b> offline medical encyclopedia, written by "
            "WikiProjectMed volunteers for health care professionals and the public.",
            "Browse articles on common conditions and essential medicines:",
            f"<ul>{links}</ul>",
        ),
    )


def build(path: Path) -> Path:
    """Write the demo MDWiki archive at ``path`` (title index only)."""
    medicine = navbox(
        "Essential medicines and conditions", "Medicine",
        [(a.title, a.title) for a in ARTICLES], "x",
    )  # fmt: skip
    pages, redirects = article_entries(
        (*ARTICLES, _intro_page()), host=HOST, navboxes={"medicine": medicine}
    )
    return write_zim(
        path,
        pages=[*pages, *asset_pages()],
        redirects=redirects,
        metadata=METADATA,
        main_path=MAIN_PATH,
        fulltext_index=False,
    )
