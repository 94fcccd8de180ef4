import Datasets
